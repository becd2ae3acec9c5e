"""The weights methodology page shows the season's universe and its inputs, in Chromium.

A season whose universe was read from the chain (W-UNI-1: here built by the same
pure rule from fixture reads, W-UNI-2) is replayed into a store; the site served
over it shows, on ``/methodology/weights``, one table row per symbol on record with
the numbers of ``/api/v1/weights/universe``, accessible at 390 and 1440 px.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tradeleague.clock import WallClock
from tradeleague.feeds import FrozenBarsSource
from tradeleague.feeds.registry import parse_registry
from tradeleague.formats.weights import (
    Division,
    FeedReading,
    SupplyReading,
    WeightsPreset,
    choose_universe,
)
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.universe import universe_payload
from tradeleague.market import synthetic_dataset
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi
from tradeleague.web.formatting import money, qty
from web import patient  # type: ignore[import-not-found]
from web.test_site_browser import _Tab  # type: ignore[import-not-found]

SEASON = "uni-s1"
RECORD = ("SYN01", "SYN02", "SYN03", "SYN04", "ZERO", "SILENT")


def _fill(service: ScenarioService) -> None:
    dataset = synthetic_dataset(4, 30, seed=5)
    last = datetime.fromtimestamp(int(dataset[dataset.symbols[0]].times[-1]), UTC).date()
    start, end = last - timedelta(days=8), last + timedelta(days=1)
    at = datetime.combine(start, datetime.min.time(), tzinfo=UTC)
    registry = parse_registry(
        {
            "feeds": {
                s: {"aggregator": f"0xa9{i + 1:038x}", "token": f"0x70{i + 1:038x}", "decimals": 8}
                for i, s in enumerate(RECORD)
            }
        },
        name="site",
    )
    readings = {
        s: FeedReading(
            symbol=s,
            answer=0 if s == "ZERO" else (40 + 9 * i) * 10**8,
            decimals=8,
            updated_at=at - timedelta(hours=60 if s == "SILENT" else 1),
        )
        for i, s in enumerate(RECORD)
    }
    supplies = {
        s: SupplyReading(symbol=s, supply=(i + 1) * 10**22, decimals=18)
        for i, s in enumerate(RECORD)
    }
    universe = choose_universe(readings, supplies, registry.decimals, at, WeightsPreset())
    payload = universe_payload(
        universe, registry, season=SEASON, read_at=at, node_block_time=at, size=20
    )
    assert payload["symbols"] == list(dataset.symbols)
    _parsed, agents, _ = build_agents(["eq=baseline:equal_weight"], gateway=object())  # type: ignore[arg-type]
    roster = [RosterEntry(name="eq", spec="eq=baseline:equal_weight", division=Division.PRO)]
    asyncio.run(
        run_season(
            service.store, FrozenBarsSource(dataset), roster, agents,
            season_id=SEASON, start=start, end=end, universe=payload,
        )
    )  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('universe') / 'site.db'}"
    service = ScenarioService(open_store(url), WallClock())
    _fill(service)
    with serve_asgi(create_site(service)) as base:
        yield base
    service.store.close()


def test_methodology_page_shows_the_universe_as_the_json_does(site: str, browser: Any) -> None:
    """W-UNI-1: every symbol on record, chosen or left out and why, with the JSON's numbers;
    no console error or outside request; axe clean at both widths; no sideways page."""
    from axe_playwright_python.sync_playwright import Axe

    body = patient.get(f"{site}/api/v1/weights/universe", timeout=10).json()
    assert body["season"] == SEASON
    assert body["built_from"] == "chain"
    assert [r["symbol"] for r in body["rows"]][-2:] == ["SILENT", "ZERO"]
    for width in (390, 1440):
        tab = _Tab(browser, site, width)
        page = tab.open(f"{site}/methodology/weights")
        assert tab.problems == []
        rows = page.locator("table.universe tbody tr")
        assert rows.count() == len(RECORD)
        for i, row in enumerate(body["rows"]):
            cells = rows.nth(i).locator("td").all_inner_texts()
            assert cells[1] == row["symbol"]
            # through the one formatting layer: money to the cent, quantities trimmed
            assert cells[2] == (money(row["price"]) if row["price"] else "-")
            assert cells[3] == (qty(row["supply"]) if row["supply"] else "-")
            assert cells[4] == (money(row["value"]) if row["value"] else "-")
            assert cells[6].startswith("yes" if row["chosen"] else "no: ")
        assert "its feed gave no valid price (not_positive)" in rows.nth(5).inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        bad = [
            v["id"]
            for v in Axe().run(page).response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == []
        tab.context.close()
