"""The public site in a real headless Chromium over a server filled by replays of all formats.

Each page loads with no console error, no failed request and no request to
another host; board numbers equal the JSON API's; model text shows escaped
exactly once; axe finds no serious or critical violation; pages work at 390 px
and 1440 px.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

from tradeleague.api import ScenarioService
from tradeleague.api.site import create_site
from tradeleague.clock import WallClock
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi
from web.site_fill import SEASON, STREAM, XSS, fill_all, site_pages  # type: ignore[import-not-found]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, list[str]]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('site') / 'site.db'}"
    service = ScenarioService(open_store(url), WallClock())
    scenario = fill_all(service)
    with serve_asgi(create_site(service, direction_stream=STREAM)) as base:
        yield base, scenario, site_pages(service, scenario)
    service.store.close()


def _visit(browser: Any, base: str, path: str, width: int) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    host = urlsplit(base).netloc
    page.on(
        "console", lambda m: problems.append(f"console {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: problems.append(f"pageerror {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed {r.url}"))

    def outside(request: Any) -> None:
        if (
            not request.url.startswith(("data:", f"blob:{base}"))
            and urlsplit(request.url).netloc != host
        ):
            problems.append(f"external {request.url}")

    page.on("request", outside)
    response = page.goto(base + path, wait_until="networkidle")
    assert response is not None, path
    assert response.status == 200, path
    return context, page, problems


def test_every_page_loads_clean_accessible_at_both_widths(
    site: tuple[str, str, list[str]], browser: Any
) -> None:
    """No console error, failed or external request; axe clean; no sideways page at 390 px."""
    from axe_playwright_python.sync_playwright import Axe

    base, _, every = site
    axe = Axe()
    for path in [*every, "/docs", "/redoc"]:
        for width in (390, 1440):
            context, page, problems = _visit(browser, base, path, width)
            assert problems == [], (path, problems)
            if path not in ("/docs", "/redoc"):
                scroll = page.evaluate("document.documentElement.scrollWidth")
                assert scroll <= width + 1, (path, width, scroll)
                if width == 1440:
                    results = axe.run(page)
                    bad = [
                        v["id"]
                        for v in results.response["violations"]
                        if v["impact"] in ("serious", "critical")
                    ]
                    assert bad == [], (path, bad)
            context.close()


def test_board_numbers_equal_the_json_api(site: tuple[str, str, list[str]], browser: Any) -> None:
    """Each board row shows value, return, drawdown and trades exactly as /api/v1 serves them."""
    base, scenario, _ = site
    table = httpx.get(f"{base}/api/v1/weights/seasons/{SEASON}/tables/pro").json()
    context, page, _ = _visit(browser, base, f"/weights/{SEASON}", 1440)
    for row in table["rows"]:
        tr = page.locator(f'table[data-division="pro"] tr[data-agent="{row["agent"]}"]')
        for field in ("value", "season_return", "max_drawdown", "trades"):
            assert tr.locator(f'[data-field="{field}"]').inner_text() == str(row[field])
    context.close()
    board = httpx.get(f"{base}/api/v1/direction/boards").json()
    context, page, _ = _visit(browser, base, "/direction", 1440)
    cells = page.locator('table[data-board="models"] [data-field="balance"]').all_inner_texts()
    assert cells == [m["balance"] for m in board["models"]]
    rois = page.locator('table[data-board="models"] [data-field="roi"]').all_inner_texts()
    assert rois == [m["roi"] for m in board["models"]]
    context.close()
    lb = httpx.get(f"{base}/api/v1/leaderboard", params={"scenario": scenario}).json()
    context, page, _ = _visit(browser, base, f"/scenarios/{scenario}", 1440)
    steps = page.locator('table[data-board="scenario"] [data-field="steps"]').all_inner_texts()
    assert steps == [str(e["steps"]) for e in lb["entries"]]
    context.close()


def test_script_names_and_rationales_show_as_text_escaped_once(
    site: tuple[str, str, list[str]], browser: Any
) -> None:
    """A name and rationale of <script>alert(1)</script> read as exactly that text."""
    base, _, _ = site
    context, page, problems = _visit(
        browser, base, f"/direction/models/{quote(XSS, safe='')}", 1440
    )
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    assert page.locator("h1").inner_text() == f"Model {XSS}"
    cells = page.locator("table.log td.modeltext").all_inner_texts()
    assert cells
    assert all(c == XSS for c in cells)
    assert page.locator("script").count() == 0
    assert dialogs == []
    assert problems == []
    context.close()
