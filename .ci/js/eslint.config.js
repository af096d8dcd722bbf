// eslint's settings for the browser app's scripts (src/callbreak/web/static/*.js): the
// recommended rules, for ES modules in a browser; the service worker in its own scope.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: "error",
      "no-var": "error",
      // A local named as a function of its module hides it (a call then finds the local).
      "no-shadow": "error",
      "prefer-const": "error",
    },
  },
  {
    // The service worker is a classic script (its VERSION and SHELL the server writes above it).
    files: ["**/sw.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.serviceworker },
    },
  },
];
