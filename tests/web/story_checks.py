"""What a visitor must see on the home page and every board, at a given width (issue 26).

Shared by the site's story tests: over the session's filled store
(``test_site_story``) and over a store the host wrote (``test_site_host_store``).
"""

from __future__ import annotations

import re
from typing import Any

from web import patient  # type: ignore[import-not-found]

Boards = dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]
"""Each format's board JSON with its rows, by the key the pages use."""


def boards(base: str, weights: str, thesis: str, scenario: str) -> Boards:
    """Return each format's board JSON with its rows (weights' Pro table, the served arena)."""

    def get(path: str, **query: str) -> Any:
        return patient.get(base + path, params=query).json()

    pro = get(f"/api/v1/weights/seasons/{weights}/tables/pro")
    arena = get("/api/v1/direction/boards")
    board = get(f"/api/v1/thesis/{thesis}")
    scen = get("/api/v1/leaderboard", scenario=scenario)
    return {
        "weights": (pro, pro["rows"]),
        "direction": (arena, arena["models"]),
        "thesis": (board, board["rows"]),
        "scenario": (scen, scen["entries"]),
    }


def name_of(row: dict[str, Any]) -> str:
    return str(row.get("name") or row.get("account") or row["run_id"])


def _text(html: str) -> str:
    return html.replace("&lt;", "<").replace("&gt;", ">")


def check_home(
    page: Any, found: Boards, width: int, unranked: frozenset[str] = frozenset()
) -> None:
    """The home page (loaded in ``page``): each format's leader with its figure, its top rows,
    one race chart with one line per agent (and the numbers in a table for screen readers),
    nothing wider than ``width``. A format in ``unranked`` has no ranked agent: its section
    says so, and still draws every agent's line."""
    for key, (board, rows) in found.items():
        story = page.locator(f'[data-story="{key}"]').inner_text()
        assert story == _text(board["story"]), key
        if key in unranked:
            assert all(r["rank"] is None for r in rows), key
            assert story == "No agent is ranked yet.", (key, story)
        else:
            leader = next(r for r in rows if r["rank"] == 1)
            top = page.locator(f'table[data-top="{key}"] tbody tr')
            assert top.count() == min(5, len(rows)), key
            assert _text(name_of(leader)) in top.first.inner_text(), key
            assert story.startswith(f"{_text(name_of(leader))} leads at "), (key, story)
            figure = top.first.locator('[data-field="figure"]').inner_text()
            assert re.fullmatch(r"[+-]\d+\.\d\d%", figure), figure
            assert figure.rstrip("%").lstrip("+") in story or figure in story, (figure, story)
        lines = board["race"]["lines"]
        assert [line["name"] for line in lines] == [name_of(r) for r in rows], key
        chart = page.locator(f'figure.race[data-race="{key}"] svg')
        assert chart.count() == 1, key
        numbers = page.locator(f'table.race-numbers[data-race="{key}"] tbody tr')
        assert numbers.count() == len(lines), key
        assert chart.locator("path").count() == len(lines), key
        box = chart.bounding_box()
        assert box is not None, key
        assert 0 <= box["x"] <= box["x"] + box["width"] <= width, key
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width + 1, scroll


def check_first_five(page: Any, base: str, paths: list[str], width: int) -> None:
    """On each board: rank, name, return and verdict of rows 1-5 lie in the viewport unscrolled;
    at 390 px no table is wider than the viewport unless it is a card list."""
    for path in paths:
        page.goto(base + path, wait_until="load")
        rows = page.locator("table.board").first.locator("tbody tr")
        assert rows.count() >= 1, path
        for i in range(min(5, rows.count())):
            row = rows.nth(i)
            cells = [row.locator("td, th").nth(0), row.locator("td, th").nth(1)]
            cells += [
                row.locator(f'[data-label^="{label}"]').first
                for label in ("Return", "ROI", "vs cash")
                if row.locator(f'[data-label^="{label}"]').count()
            ]
            assert len(cells) >= 3, path
            for cell in cells:
                box = cell.bounding_box()
                assert box is not None, path
                assert box["x"] >= 0, (path, i)
                assert box["x"] + box["width"] <= width + 1, (path, i, cell.inner_text())
        if width == 390:
            wide = page.evaluate(
                "[...document.querySelectorAll('table')].filter(t => "
                "getComputedStyle(t).display === 'table' && "
                "t.getBoundingClientRect().width > innerWidth).map(t => t.className)"
            )
            assert wide == [], (path, wide)
