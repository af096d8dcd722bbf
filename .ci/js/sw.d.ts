// What the server writes above static/sw.js when it serves it (web/app.py, worker()).
declare const VERSION: string;
declare const SHELL: string[];
