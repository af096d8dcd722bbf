// The service worker: the app on the home screen starts from its own copy of the static files,
// and says so, with a page of its own, when the server cannot be reached; it never shows a
// stale table.
//
// The server (app.py's /sw.js) puts two constants before this text: VERSION, a hash of every
// static file, and SHELL, the addresses of the files kept. A release that changes any file
// changes this script, so the browser installs it anew: it fetches the new shell into a new
// cache, takes over the open pages, and deletes the older caches.
//
// - the shell's files (/static/...): from the cache, from the network when missing;
// - a page (a navigation): from the network, never kept; when the server cannot be reached (no
//   answer, or a proxy's 502, 503 or 504) the shell's offline page answers instead, and
//   offline.js loads the app again as soon as the server answers;
// - /api/ and /ws/, and anything else: not touched (the browser asks the server as without a
//   worker): no table, no token, no answer of the API is ever kept.

/* global VERSION, SHELL */
/** This script's scope: a service worker's. */
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const CACHE = `callbreak-shell-${VERSION}`;
const OFFLINE = "/static/offline.html";
const DOWN = new Set([502, 503, 504]);

worker.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // Past the browser's HTTP cache: this release's files, not older copies of them.
    await cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" })));
    await worker.skipWaiting();
  })());
});

worker.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("callbreak-") && name !== CACHE) await caches.delete(name);
    }
    await worker.clients.claim();
  })());
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== worker.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return;
  if (request.mode === "navigate") event.respondWith(page(request));
  else if (!url.search && SHELL.includes(url.pathname)) event.respondWith(kept(request));
});

/** A page from the network, or the offline page when the server cannot be reached. */
async function page(request) {
  try {
    const answer = await fetch(request);
    if (!DOWN.has(answer.status)) return answer;
  } catch {
    // no answer at all: the offline page
  }
  const offline = await caches.match(OFFLINE, { cacheName: CACHE });
  return offline || Response.error();
}

/** A file of the shell: the kept copy, or the network's when it is missing. */
async function kept(request) {
  const cache = await caches.open(CACHE);
  return (await cache.match(request)) || fetch(request);
}
