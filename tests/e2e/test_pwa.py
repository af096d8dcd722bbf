"""The app on the home screen, in Chromium: the installability check passes, the service worker
registers and serves the shell, keeps nothing of the API, makes way for a new release, and when
the server stops a page of its own says so in the person's language and returns to the app by
itself once the server answers again (tests/test_pwa.py checks the files without a browser)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callbreak.web import app as web_app
from callbreak.web.app import create_app
from tests.e2e.conftest import CHROMIUM, FLAGS
from tests.e2e.table import context
from tests.e2e.test_security import LISTEN
from tests.helpers import FAST, free_port, running

OFFLINE = {
    "en": ("No connection", "Call Break: no connection"),
    "ne": ("जडान छैन", "कल ब्रेक: जडान छैन"),
    "hi": ("कनेक्शन नहीं है", "कॉल ब्रेक: कनेक्शन नहीं है"),
}
READY = "async () => { await navigator.serviceWorker.ready; return true; }"
CACHED = """async () => {
  const kept = {};
  for (const name of await caches.keys()) {
    kept[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
  }
  return kept;
}"""


def test_installable_and_the_offline_page_when_the_server_stops(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, screens: Path
) -> None:
    port = free_port()
    database = tmp_path / "callbreak.db"
    # A profile of its own: Chromium installs no app from an incognito context (a new_context).
    phone = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        headless=True,
        args=FLAGS,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    try:
        phone.set_default_timeout(20_000)
        phone.add_init_script(LISTEN)
        page = phone.pages[0] if phone.pages else phone.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        answers: list[Any] = []
        page.on("response", lambda answer: answers.append(answer))
        with running(create_app(database, limits=FAST), port) as url:
            page.goto(f"{url}/")
            page.wait_for_selector("#name")
            # Chromium's own check of the manifest, its icons and the worker.
            cdp = phone.new_cdp_session(page)
            assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
            manifest = cdp.send("Page.getAppManifest")
            assert manifest["url"] == f"{url}/manifest.webmanifest" and manifest["errors"] == []
            parsed = manifest["manifest"]
            assert parsed["name"] == "Call Break" and parsed["display"] == "kStandalone"
            assert parsed["startUrl"] == f"{url}/" and parsed["scope"] == f"{url}/"
            assert len(parsed["icons"]) == len(json.loads(manifest["data"])["icons"]) == 5
            # The worker registers, and serves the page's files once it controls the page.
            assert page.evaluate(READY)
            before = len(answers)
            page.reload()
            page.wait_for_selector("#name")
            scope = "() => navigator.serviceWorker.controller?.scriptURL"
            assert page.evaluate(scope) == f"{url}/sw.js"
            version, shell = web_app.shell()
            kept = page.evaluate(CACHED)
            assert list(kept) == [f"callbreak-shell-{version}"]
            assert sorted(kept[f"callbreak-shell-{version}"]) == sorted(shell)
            static = [a for a in answers[before:] if a.url.startswith(f"{url}/static/")]
            served = [a for a in static if a.url.endswith((".js", ".css"))]
            assert served and all(a.from_service_worker for a in served), served
            api = [a for a in answers if "/api/" in a.url]
            assert api and not any(a.from_service_worker for a in api)  # never the worker's
            # A new release: the worker changes, its new shell replaces the old one, and the
            # page reloads to run the new release's files only.
            monkeypatch.setattr(web_app, "shell", lambda: (f"{version}-next", shell))
            monkeypatch.setattr(web_app, "_worker", None)
            page.evaluate("window.__before = true")
            page.evaluate("async () => { (await navigator.serviceWorker.ready).update(); }")
            page.wait_for_function("() => window.__before === undefined")
            page.wait_for_selector("#name")
            assert list(page.evaluate(CACHED)) == [f"callbreak-shell-{version}-next"]
            page.evaluate("localStorage.setItem('callbreak:lang', 'ne')")
        # The server is gone: the app opened again (from the home screen, a new page) shows the
        # worker's page, in Nepali.
        page.close()
        page = phone.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{url}/#/history")
        title, page_title = OFFLINE["ne"]
        page.wait_for_selector(f"#offline-title:text('{title}')")
        assert page.title() == page_title
        assert page.url == f"{url}/#/history"  # the same address: the same page comes back
        assert page.evaluate("document.documentElement.lang") == "ne"
        page.screenshot(path=str(screens / "offline-390-ne.png"))
        page.reload()  # and again, while the server is away
        page.wait_for_selector(f"#offline-title:text('{title}')")
        # It comes back on the same port: the page returns to the app by itself.
        with running(create_app(database, limits=FAST), port):
            page.wait_for_selector("header nav a[href='#/history']", timeout=30_000)
            assert page.url == f"{url}/#/history"
            page.wait_for_function("() => document.documentElement.lang === 'ne'")
            assert page.locator("#offline-title").count() == 0
            violations = page.evaluate("window.__violations")
            assert violations == [] and errors == [], (violations, errors)
            assert "/api/" not in json.dumps(page.evaluate(CACHED))
    finally:
        phone.close()


@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_the_offline_page_in_each_language(
    browser: Any, base_url: str, screens: Path, lang: str
) -> None:
    """Chosen as the app chooses: the language kept by the page, else the browser's."""
    made = context(browser, width="360", lang=lang)
    fresh = browser.new_context(locale={"en": "en-US", "ne": "ne-NP", "hi": "hi-IN"}[lang])
    try:
        for page_context in (made, fresh):
            page_context.add_init_script(LISTEN)
            page = page_context.new_page()
            page.goto(f"{base_url}/static/offline.html")
            title, page_title = OFFLINE[lang]
            page.wait_for_selector(f"#offline-title:text('{title}')")
            assert page.title() == page_title
            assert page.evaluate("document.documentElement.lang") == lang
            button = page.locator("#offline-retry").bounding_box()
            assert button and button["height"] >= 44
            assert page.evaluate("window.__violations") == []
            if page_context is made:
                page.screenshot(path=str(screens / f"offline-360-{lang}.png"))
    finally:
        made.close()
        fresh.close()
