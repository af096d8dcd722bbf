"""End-to-end fixtures: the real app on a loopback port and Debian's Chromium driven by
Playwright. The browser is the system's /usr/bin/chromium (``.ci/run`` installs it); nothing is
downloaded at run time."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from callbreak.warmup import warm_up
from callbreak.web.app import create_app
from tests.helpers import FAST, running

CHROMIUM = os.environ.get("CALLBREAK_CHROMIUM", "/usr/bin/chromium")
SCREENS = Path(__file__).parent / "screens"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """The web app served by uvicorn on a free loopback port, with a fresh database."""
    # As `callbreak serve` does, but before the first test rather than in the background: on a
    # fresh clone the kernel is compiled here, which can take longer than a page's wait.
    warm_up()
    database = tmp_path_factory.mktemp("e2e") / "callbreak.db"
    # Every browser of these tests comes from 127.0.0.1, at machine speed: the per-address
    # limits (docs/deploy.md) would refuse the suite's hundreds of pages and rooms.
    # A review's budget of a hundredth of a second a decision: a match reviewed in seconds
    # (the first review also starts its process, which loads the kernel).
    app = create_app(database, limits=dataclasses.replace(FAST, review_time=0.01))
    with running(app, log_level="warning") as url:
        yield {"url": url, "app": app}


@pytest.fixture(scope="session")
def base_url(server: dict[str, object]) -> str:
    """The app's address."""
    return str(server["url"])


@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    """Headless Chromium, for the tests of this package only: Playwright's synchronous API runs
    an event loop of its own until it stops, and the asynchronous tests that run after this
    package (tests/test_rooms.py...) could not run theirs while it did."""
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: install Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh page (its own storage) at desktop size, motion on."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    # Cards travel, but a finished trick does not wait (the person's setting): quicker tests.
    context.add_init_script("localStorage.setItem('callbreak:pause', 'off')")
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


@pytest.fixture(scope="session")
def screens() -> Path:
    """Where screenshots go for a person to look at (ignored by git)."""
    SCREENS.mkdir(exist_ok=True)
    return SCREENS
