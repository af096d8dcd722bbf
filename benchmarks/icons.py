"""Make the app's PNG icons from its hand-drawn SVG (not a benchmark: a one-off tool kept beside
the other scripts).

Run: ``python benchmarks/icons.py`` after changing ``src/callbreak/web/static/icon.svg``, and
commit the PNGs it writes beside it. Debian's Chromium (``CALLBREAK_CHROMIUM``, as the browser
tests) draws the SVG through Playwright and screenshots it at each size:

- ``icon-192.png``, ``icon-512.png``: the icon as drawn (rounded felt tile, transparent
  corners), the manifest's ``any`` icons;
- ``icon-maskable-192.png``, ``icon-maskable-512.png``: the tile squared to the edges and the
  cards shrunk into the middle 80 % circle that every mask keeps (the manifest's ``maskable``);
- ``apple-touch-icon.png`` (180): the maskable drawing, as iOS rounds the corners itself and
  fills transparency with black.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import sync_playwright

STATIC = Path(__file__).parent.parent / "src" / "callbreak" / "web" / "static"
CHROMIUM = os.environ.get("CALLBREAK_CHROMIUM", "/usr/bin/chromium")
PAGE = (
    "<style>html, body {{ margin: 0; background: transparent; }}"
    " svg {{ display: block; width: 100vw; height: 100vh; }}</style>{svg}"
)
# The maskable drawing: the same SVG with the tile's corners squared and the mark shrunk.
MASKABLE = """() => {
  document.getElementById("tile").setAttribute("rx", "0");
  const mark = document.getElementById("mark");
  mark.setAttribute("transform", "translate(256 258) scale(0.76)");
}"""
ICONS = [
    ("icon-192.png", 192, False),
    ("icon-512.png", 512, False),
    ("icon-maskable-192.png", 192, True),
    ("icon-maskable-512.png", 512, True),
    ("apple-touch-icon.png", 180, True),
]


def main() -> None:
    """Write every PNG of ICONS into the static folder."""
    svg = (STATIC / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, size, maskable in ICONS:
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(PAGE.format(svg=svg))
            if maskable:
                page.evaluate(MASKABLE)
            page.screenshot(path=str(STATIC / name), omit_background=True)
            page.close()
            print(f"{name}: {size}x{size}")
        browser.close()


if __name__ == "__main__":
    main()
