// The app on the home screen: registers the service worker (sw.js, served from the root so that
// it serves every page of the app). It keeps the static shell and shows a page of its own when
// the server cannot be reached (docs/web.md, *On the home screen*).

if ("serviceWorker" in navigator) {
  // A page a worker already served reloads when a new release's worker takes over (it deletes
  // the old files as it does): the page then runs the files of one release, never a module of
  // the old one beside a module of the new. The first worker taking over reloads nothing.
  if (navigator.serviceWorker.controller) {
    navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
  }
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {
      // no worker (storage refused, an address that is not secure): the app works without it
    });
  }, { once: true });
}
