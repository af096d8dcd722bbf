"""The app as a person installs it: the wheel is built from this tree, installed (without `-e`)
into a fresh virtual environment, `callbreak serve` runs from there, and a whole match is played
in the browser at phone width. The wheel's dependencies come from the environment running the
tests (added to the new environment's path), so nothing is downloaded but the build's own
setuptools."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.table import context, play_until, sideways, step

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def wheel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`callbreak serve` from the built wheel, on a free port; its address."""
    work = tmp_path_factory.mktemp("wheel")
    # A copy of the sources, so the build leaves nothing in the tree.
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src",
        source / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.nbi", "*.nbc"),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work), str(source)],
        check=True,
    )
    (wheel,) = work.glob("callbreak-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = ["install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *install], check=True)
    # The dependencies (numba, starlette, ...) from this environment, behind the wheel's own
    # files. A plain path in a .pth file: this environment's own .pth files (its editable
    # install of callbreak) are not read.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "zz-test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    installed = subprocess.run(
        [str(python), "-c", "import callbreak; print(callbreak.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
    ).stdout.strip()
    assert installed.startswith(str(venv)), installed
    port = _free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "callbreak"), "serve", "--port", str(port), "--db", str(work / "db")],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            try:
                with urllib.request.urlopen(url + "/static/app.js", timeout=2) as answer:
                    assert answer.status == 200
                break
            except OSError:
                assert time.monotonic() < deadline, "callbreak serve did not start"
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_a_whole_match_from_the_built_wheel(browser: Any, wheel_server: str) -> None:
    ctx = context(browser, "390")
    page = ctx.new_page()
    try:
        page.goto(wheel_server + "/#/")
        page.wait_for_selector("#name")
        page.fill("#name", "")  # a blank name: the table says "You", without "(you)"
        for index in range(3):
            page.select_option(f"#opponent-{index}", "random")
        page.locator("details summary").first.click()
        page.select_option("#speed", "instant")
        page.get_by_role("button", name="Start the match").click()
        page.wait_for_url(re.compile(r"#/play/"))
        page.wait_for_selector(".hand .card")
        mine = page.locator(".seat.mine")
        assert mine.locator("strong").inner_text() == "You"
        assert mine.locator(".you").count() == 0
        summaries: set[str] = set()
        dialog = page.locator("dialog.result[open]")
        for _ in range(5_000):
            if step(page, close_dialogs=False) == "dialog":
                summaries.add(dialog.locator("h2").inner_text())
                assert "null" not in dialog.inner_text()
                if dialog.locator(".places").count():
                    break
                dialog.locator("button.primary").click()
        assert len(summaries) == 5, summaries
        assert sideways(page) <= 0
        dialog.locator("button.primary").click()
        play_until(page, "over")
        assert "Match over" in page.locator(".status").inner_text()
        assert page.locator(".scores tbody tr").count() == 6  # five deals and the total
    finally:
        ctx.close()
