// The single-page app's router: each page is a module with a render(view, params) function
// that returns an optional cleanup function, called when the page is left.

const pages = [
  [/^#?\/?$/, "./home.js"],
  [/^#\/play\/([\w-]+)$/, "./table.js"],
  [/^#\/history$/, "./history.js"],
  [/^#\/replay\/([\w-]+)$/, "./replay.js"],
  [/^#\/sheet$/, "./sheet.js"],
  [/^#\/sheet\/([\w-]+)$/, "./sheet.js"],
];

let cleanup = null;

async function route() {
  const view = document.getElementById("view");
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  const hash = location.hash || "#/";
  for (const [pattern, module] of pages) {
    const found = hash.match(pattern);
    if (found) {
      view.replaceChildren();
      const page = await import(module);
      cleanup = (await page.render(view, found.slice(1))) || null;
      markCurrentLink(hash);
      return;
    }
  }
  view.replaceChildren(Object.assign(document.createElement("p"), {
    className: "error",
    textContent: "There is no such page. ",
  }));
  view.firstChild.append(Object.assign(document.createElement("a"), { href: "#/", textContent: "Start a match" }));
}

function markCurrentLink(hash) {
  for (const link of document.querySelectorAll("header nav a")) {
    const target = link.getAttribute("href");
    const current = target === "#/" ? hash === "#/" || hash === "" : hash.startsWith(target);
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

window.addEventListener("hashchange", route);
route();
