"""What a page says, said truly: a drawdown's sign, a scenario's name, a season's kind.

A max drawdown reads as a fall, one sign (negative, W-SCO-2's) on every page
and terminal table. Formats keep it as documented in their JSON (the weights league a negative
percent, the arena and the thesis league a positive percent, the scenario
benchmark a positive fraction of one); only what a person reads is signed
one way, by ``web.formatting.drawdown``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tradeleague.events.streams import season_stream
from tradeleague.league.thesis.board_table import board_table
from tradeleague.site import create_site
from tradeleague.web.formatting import drawdown
from web.site_fill import (  # type: ignore[import-not-found]
    SEASON,
    STREAM,
    THESIS_SEASON,
)

CELL = re.compile(r'data-field="max_drawdown"[^>]*>([^<]*)<')
A_FALL = re.compile(r"-\d+\.\d\d%|0\.00%")


def test_drawdown_reads_as_a_fall_whatever_sign_a_format_keeps_w_sco_2() -> None:
    """W-SCO-2: the seed shows the max drawdown as -1.92%; every format's page does too."""
    assert drawdown("-1.92") == "-1.92%"  # the weights league's own sign
    assert drawdown("1.92") == "-1.92%"  # the arena's and the thesis league's size
    assert drawdown("0.0192", fraction=True) == "-1.92%"  # the scenario benchmark's fraction
    assert drawdown(0.013748069129765903, fraction=True) == "-1.37%"
    assert drawdown("0") == drawdown("-0.00") == "0.00%"
    assert drawdown("1.925", unit=False) == "-1.93"
    assert drawdown(None) == ""


@pytest.fixture(scope="module")
def site(filled: Any) -> Iterator[tuple[TestClient, list[str]]]:
    """A test client on the session's filled store (``conftest.filled``), and its every page."""
    with TestClient(create_site(filled.service, direction_stream=STREAM)) as client:
        yield client, filled.pages


def test_every_pages_drawdown_is_negative_and_the_json_keeps_its_own_w_sco_2(
    site: tuple[TestClient, list[str]],
) -> None:
    client, pages = site
    shown: dict[str, list[str]] = {}
    for path in pages:
        page = client.get(path)
        assert page.status_code == 200, path
        cells = [html.unescape(c).strip() for c in CELL.findall(page.text)]
        if cells:
            shown[path] = cells
    boards = {f"/weights/{SEASON}", "/direction", "/thesis/site-t1"}
    assert boards <= set(shown), sorted(shown)
    assert any(p.startswith("/scenarios/") for p in shown)
    assert any(p.startswith("/runs/") for p in shown)
    for path, cells in shown.items():
        for cell in cells:
            assert A_FALL.fullmatch(cell), (path, cell)
    assert any(c != "0.00%" for cells in shown.values() for c in cells)
    # the JSON keeps each format's documented value: the arena's a size, not a fall
    models = client.get("/api/v1/direction/boards").json()["models"]
    assert all(not str(m["max_drawdown"]).startswith("-") for m in models)


def test_the_thesis_terminal_board_shows_the_drawdown_as_a_fall_w_sco_2() -> None:
    row = {
        "rank": 1, "name": "hold", "return": "0.35", "max_drawdown": "0.18", "sharpe": None,
        "sortino": None, "win_rate": None, "exposure": "100", "trades": 1, "closed_trades": 0,
        "decisions": 3, "vs_cash": "not_distinguishable", "vs_spy": "not_distinguishable",
        "alpha": None,
        "unranked_text": None,
    }  # fmt: skip
    table = board_table([row])
    column = next(c for c in table.columns if c.header == "max drawdown")
    assert list(column.cells) == ["-0.18"]


def test_scenario_pages_name_the_scenario_not_its_id(site: tuple[TestClient, list[str]]) -> None:
    client, pages = site
    board_path = next(p for p in pages if p.startswith("/scenarios/"))
    run_path = next(p for p in pages if p.startswith("/runs/"))
    scenario = client.get("/api/v1/leaderboard", params={"scenario": board_path.split("/")[-1]})
    view = scenario.json()["scenario"]
    named = f"{view['name']} (version {view['version']})"
    for path in ("/", "/scenarios", run_path):  # each links the board by its name
        page = client.get(path).text
        links = re.findall(rf'<a href="/scenarios/{view["id"]}"[^>]*>([^<]*)</a>', page)
        assert links, path
        assert all(view["name"] in t and view["id"] not in t for t in links), (path, links)
        assert named in html.unescape(page), path
    board = client.get(board_path).text
    assert f"<h1>Leaderboard: {named}</h1>" in board


def test_each_season_says_replay_or_live_as_its_record_says(
    filled: Any, site: tuple[TestClient, list[str]]
) -> None:
    """Every season page says "replay" or "live" from the season's first event, the arena's too.

    The live arena's page says "live" (``test_site_live``).
    """
    service = filled.service
    client, pages = site
    for kind, season, page, api in (
        ("weights", SEASON, f"/weights/{SEASON}", f"/api/v1/weights/seasons/{SEASON}"),
        ("thesis", THESIS_SEASON, f"/thesis/{THESIS_SEASON}", f"/api/v1/thesis/{THESIS_SEASON}"),
    ):
        first = next(service.store.events(season_stream(kind, season), batch=1))
        recorded = first.event.payload["replay"]
        assert client.get(api).json()["replay"] is recorded, kind
        said = re.search(r'data-field="kind">([^<]*)<', client.get(page).text)
        assert said is not None, page
        assert said.group(1) == ("replay over past prices" if recorded else "live"), kind
        assert recorded is True  # the site's fill replays both; a live host writes False
    # the arena: its season's start says so too, on its board, a model's page and a round's
    first = next(service.store.events(STREAM, batch=1))
    assert first.event.payload["replay"] is True
    assert client.get("/api/v1/direction/boards").json()["replay"] is True
    arena = [p for p in pages if p.startswith("/direction/") and "/visitors" not in p]
    for path in ["/direction", *arena]:
        kinds = re.findall(r'data-field="kind">([^<]*)<', client.get(path).text)
        assert kinds == ["replay over past prices"], path
    assert "The live round" not in client.get("/direction").text
