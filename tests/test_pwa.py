"""The app on the home screen, without a browser: the manifest and its icons, the service
worker's script and the shell it keeps (tests/e2e/test_pwa.py installs them in Chromium)."""

from __future__ import annotations

import json
import re
import shutil
import struct
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from callbreak.web import app as web_app
from callbreak.web.app import create_app, shell
from callbreak.web.http import HEADERS
from tests.helpers import FAST

STATIC = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path / "db.sqlite", limits=FAST))


def felt(name: str) -> str:
    """A colour of the table's felt, as style.css defines it."""
    found = re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{6}})", (STATIC / "style.css").read_text())
    assert found, name
    return found[1].lower()


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest(client: TestClient) -> None:
    answer = client.get("/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    for name, value in HEADERS.items():
        assert answer.headers[name] == value, name
    manifest = answer.json()
    assert manifest["name"] == "Call Break" and 0 < len(manifest["short_name"]) <= 12
    assert manifest["description"]
    assert (manifest["start_url"], manifest["scope"], manifest["id"]) == ("/", "/", "/")
    assert manifest["display"] == "standalone"
    assert manifest["orientation"] == "any"  # portrait and landscape both
    assert manifest["theme_color"] == felt("felt-dark")  # the header's bar
    assert manifest["background_color"] == felt("felt")


def test_the_icons_are_the_sizes_the_manifest_says(client: TestClient) -> None:
    icons = client.get("/manifest.webmanifest").json()["icons"]
    kinds = set()
    for icon in icons:
        answer = client.get(icon["src"])
        assert answer.status_code == 200, icon["src"]
        assert answer.headers["content-type"].startswith(icon["type"]), icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(answer.content)
            assert icon["sizes"] == f"{width}x{height}", icon["src"]
            kinds.add((icon["purpose"], width))
        else:
            # Drawn by hand: well-formed XML (a double hyphen in a comment once made Chromium
            # refuse it) with a size of its own, which a browser needs to draw it as an icon.
            svg = ElementTree.fromstring(answer.content)
            assert svg.get("width") == svg.get("height") == "512"
            assert icon["sizes"] == "any"
    assert {("any", 192), ("any", 512), ("maskable", 192), ("maskable", 512)} <= kinds
    apple = client.get("/static/apple-touch-icon.png")
    assert png_size(apple.content) == (180, 180)


def test_the_page_links_the_manifest_and_the_worker(client: TestClient) -> None:
    page = client.get("/").text
    head = page[: page.index("</head>")]
    assert '<link rel="manifest" href="/manifest.webmanifest">' in head
    assert f'<meta name="theme-color" content="{felt("felt-dark")}">' in head
    assert '<link rel="apple-touch-icon" href="/static/apple-touch-icon.png">' in head
    assert '<script type="module" src="/static/pwa.js"></script>' in head
    assert 'register("/sw.js")' in (STATIC / "pwa.js").read_text()


def test_the_worker_and_its_shell(client: TestClient) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"  # a new release is seen at once
    for name, value in HEADERS.items():
        assert answer.headers[name] == value, name
    version, urls = shell()
    assert answer.text.startswith(
        f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(urls)};\n"
    )
    assert answer.text.endswith((STATIC / "sw.js").read_text())
    # Every static file but the page, the manifest, the worker and the icons only the browser
    # fetches to install the app (past the worker); nothing of the API.
    files = {path.name for path in STATIC.iterdir() if path.is_file()}
    assert {url.removeprefix("/static/") for url in urls} == files - {
        "index.html",
        "manifest.webmanifest",
        "sw.js",
        *(path.name for path in STATIC.glob("*.png")),
    }
    kept = {"offline.html", "offline.js", "offline.css", "icon.svg", "app.js", "style.css"}
    assert {f"/static/{name}" for name in kept} <= set(urls)
    for url in urls:
        assert url.startswith("/static/") and client.get(url).status_code == 200, url
    # The worker leaves the API and the sockets to the network, before anything else.
    script = (STATIC / "sw.js").read_text()
    fetch = script[script.index('addEventListener("fetch"') :]
    bypass = fetch.index('url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")')
    assert bypass < fetch.index("respondWith")
    assert "cache.put" not in script  # only the install fills the cache, from SHELL


def test_a_changed_static_file_makes_a_new_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy)
    monkeypatch.setattr(web_app, "STATIC", copy)
    monkeypatch.setattr(web_app, "_worker", None)
    first = web_app.worker()
    assert web_app.worker() is first  # kept while nothing changed
    version, _ = shell()
    (copy / "style.css").write_text((copy / "style.css").read_text() + "\n/* next */\n")
    assert shell()[0] != version
    assert web_app.worker() != first and shell()[0] in web_app.worker()


def test_the_offline_page_keeps_to_the_policy() -> None:
    """No inline script or style (as index.html), and its words in the three languages."""
    page = (STATIC / "offline.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert not re.search(r"<style|\sstyle=|\son\w+=", page)
    script = (STATIC / "offline.js").read_text()
    for lang in ("en", "ne", "hi"):
        assert re.search(rf"^  {lang}: {{$", script, re.MULTILINE), lang
    assert '"callbreak:lang"' in script  # the key i18n.js keeps the language under
    assert '"callbreak:lang"' in (STATIC / "i18n.js").read_text()
