"""Write a screenshot of every page of the site at 390 px and 1440 px (``make screenshots``).

Fills a store as the site's browser tests do (real replays of all three
formats), serves it, and saves ``screenshots/<page>-<width>.png`` (the folder
git ignores), full-page, in Debian's headless Chromium.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi
from web.site_fill import DOCS_DRAWN, SEASON, STREAM, fill_all, site_pages  # type: ignore[import-not-found]

CHROMIUM = Path("/usr/bin/chromium")
WIDTHS = (390, 1440)
# The README's two pictures (docs/images/), the first screen of each at 1440 px:
# ``make screenshots`` rewrites them beside the full pages.
README_IMAGES = {"/": "home.png", f"/weights/{SEASON}": "board.png"}
README_DIR = Path(__file__).resolve().parents[2] / "docs" / "images"


def slug(path: str) -> str:
    """Return a file name for a page path: ``/weights/s1`` -> ``weights-s1``."""
    return re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")[:80] or "home"


def main(out: Path) -> int:
    """Fill, serve and photograph every page into ``out``; return the exit status."""
    if not CHROMIUM.exists():
        print(f"needs Debian's chromium package ({CHROMIUM})", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        service = ScenarioService(open_store(f"sqlite:///{Path(tmp) / 'site.db'}"), WallClock())
        scenario = fill_all(service)
        paths = [*site_pages(service, scenario), *DOCS_DRAWN]
        with (
            serve_asgi(create_site(service, direction_stream=STREAM)) as base,
            sync_playwright() as p,
        ):
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            for width in WIDTHS:
                context = browser.new_context(viewport={"width": width, "height": 900})
                page = context.new_page()
                for path in paths:
                    page.goto(base + path, wait_until="networkidle")
                    if path in DOCS_DRAWN:  # drawn by its script after the load
                        page.wait_for_selector(DOCS_DRAWN[path], timeout=30_000)
                    target = out / f"{slug(path)}-{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    print(target)
                    if width == max(WIDTHS) and path in README_IMAGES:
                        README_DIR.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(README_DIR / README_IMAGES[path]))
                context.close()
            browser.close()
        service.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("screenshots")))
