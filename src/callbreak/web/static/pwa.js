// The app on the home screen: registers the service worker (sw.js, served from the root so that
// it serves every page of the app). It keeps the static shell and shows a page of its own when
// the server cannot be reached (docs/web.md, *On the home screen*).

if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {
      // no worker (storage refused, an address that is not secure): the app works without it
    });
  }, { once: true });
}
