// The single-page app's router: each page is a module with a render(view, params) function
// that returns an optional cleanup function, called when the page is left. The header's
// words and the language chooser live here; choosing a language draws the page again.

import { LANGUAGES, lang, setLang, t } from "./i18n.js";

/** @type {[RegExp, string][]} each page's address and its module */
const pages = [
  [/^#?\/?$/, "./home.js"],
  [/^#\/(friends)$/, "./home.js"],
  [/^#\/now(?:\/(\w+))?$/, "./now.js"],
  [/^#\/play\/([\w-]+)$/, "./table.js"],
  [/^#\/room\/(\w+)$/, "./room.js"],
  [/^#\/history$/, "./history.js"],
  [/^#\/record$/, "./record.js"],
  [/^#\/replay\/(room)\/(\w+)(?:\?([\w=&]*))?$/, "./replay.js"],
  [/^#\/replay\/([\w-]+)(?:\?([\w=&]*))?$/, "./replay.js"],
  [/^#\/review\/(room)\/(\w+)$/, "./review.js"],
  [/^#\/review\/([\w-]+)$/, "./review.js"],
  [/^#\/lesson$/, "./lesson.js"],
  [/^#\/sheet$/, "./sheet.js"],
  [/^#\/sheet\/([\w-]+)$/, "./sheet.js"],
  [/^#\/challenge$/, "./challenge.js"],
  [/^#\/leaderboard(?:\/([\w-]+))?$/, "./leaderboard.js"],
  [/^#\/player(?:\/([\w-]+))?$/, "./career.js"],
];

let cleanup = null;
let routed = 0;

async function route() {
  const view = document.getElementById("view");
  const mine = ++routed;
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  const hash = location.hash || "#/";
  for (const [pattern, module] of pages) {
    const found = hash.match(pattern);
    if (found) {
      // Each page draws into a box of its own: a page still loading when the person moves on
      // draws into a box that is no longer shown, and its cleanup runs as soon as it is known.
      const box = document.createElement("div");
      box.className = "page";
      view.replaceChildren(box);
      markCurrentLink(hash);
      const page = await import(module);
      if (mine !== routed) return;
      const done = (await page.render(box, found.slice(1))) || null;
      if (mine !== routed) {
        if (done) done();
        return;
      }
      cleanup = done;
      return;
    }
  }
  const missing = Object.assign(document.createElement("p"), { className: "error", textContent: `${t("noSuchPage")} ` });
  missing.append(Object.assign(document.createElement("a"), { href: "#/", textContent: t("startMatch") }));
  view.replaceChildren(missing);
}

function markCurrentLink(hash) {
  for (const link of document.querySelectorAll("header nav a")) {
    const target = link.getAttribute("href");
    const current = target === "#/"
      ? ["#/", "", "#/friends"].includes(hash) || hash.startsWith("#/room/") || hash.startsWith("#/now")
      : hash.startsWith(target);
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** The header's words in the chosen language. */
function drawHeader() {
  document.documentElement.lang = lang();
  document.title = t("brand");
  document.querySelector(".brand-name").textContent = t("brand");
  for (const element of document.querySelectorAll("[data-text]")) {
    element.textContent = t(/** @type {HTMLElement} */ (element).dataset.text);
  }
  const chooser = /** @type {HTMLSelectElement} */ (document.getElementById("lang"));
  if (!chooser.options.length) {
    // Each language under its own name, as language menus do.
    for (const [code, name] of LANGUAGES) chooser.append(new Option(name, code));
    chooser.addEventListener("change", () => {
      setLang(chooser.value);
      drawHeader();
      route();
    });
  }
  chooser.value = lang();
  chooser.setAttribute("aria-label", t("language"));
}

drawHeader();
window.addEventListener("hashchange", route);
route();
