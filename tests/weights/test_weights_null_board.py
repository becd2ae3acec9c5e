"""A weights board's luckiest-of-N line and baseline cloud come from the no-skill null (ST-2).

Issue 16, item 3: the line beside a weights table is the no-skill null simulated
under the league's own rules over the division's recorded rounds (prices, halts,
symbols), seeded from the season, N the division's agents; it equals what
``tradeleague stats null`` prints over the same bars with that seed and N. The
season page draws the null's distribution (at least 1,000 agents, the same seed)
as an inline SVG with its numbers in tables, each agent of the table marked in
it; the page shows exactly what the JSON API serves. ST-1 (the line names the
rounds it rests on), ST-3 (percentages in hundredths).
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from rich.console import Console
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division, WeightsPreset
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.board_table import render_table
from tradeleague.league.weights.null import (
    CLOUD_AGENTS,
    null_seed,
    season_null,
    season_rounds,
    state_rounds,
)
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.report import build_report
from tradeleague.league.weights.state import SeasonState
from tradeleague.market import load_dataset
from tradeleague.site import create_site
from tradeleague.stats.null import NullCloud, null_summary
from tradeleague.store import open_store

SYMBOLS = ["AAPL", "MSFT", "NVDA", "SPY", "QQQ", "SGOV", "XOM", "TSLA"]
START, END = date(2026, 6, 22), date(2026, 7, 8)
SEASON = "null-board"
SPECS = [
    "cash=baseline:cash",
    "hold=baseline:buy_and_hold",
    "eq=baseline:equal_weight",
    "flip=baseline:coin_flip",
    "mom=baseline:momentum",
]


@pytest.fixture(scope="module")
def season(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[SeasonState, str]:
    """An Open season of five baselines over real daily bars, in a SQLite store."""
    dataset = load_dataset(shared_data / "us_equities_daily", symbols=SYMBOLS)
    parsed, agents, _ = build_agents(SPECS, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.OPEN)
        for p, s in zip(parsed, SPECS, strict=True)
    ]
    url = f"sqlite:///{tmp_path_factory.mktemp('null-board') / 'events.db'}"
    with open_store(url) as store:
        state = asyncio.run(
            run_season(
                store, FrozenBarsSource(dataset), roster, agents,
                season_id=SEASON, start=START, end=END,
            )
        )  # fmt: skip
    return state, url


def _null_cli(shared_data: Path, agents: int, seed: int, *more: str) -> dict[str, Any]:
    args = [
        "stats", "null", "--format", "weights",
        "--market", str(shared_data / "us_equities_daily"),
        "--symbols", ",".join(SYMBOLS), "--start", str(START), "--end", str(END),
        "--agents", str(agents), "--kind", "random-weights", "--seed", str(seed), "--json",
        *more,
    ]  # fmt: skip
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    printed: dict[str, Any] = json.loads(result.stdout)
    return printed


def _get(url: str) -> tuple[dict[str, Any], str]:
    with open_store(url) as store:
        site = create_site(ScenarioService(store, WallClock()))
        with TestClient(site) as client:
            table = client.get(f"/api/v1/weights/seasons/{SEASON}/tables/open")
            page = client.get(f"/weights/{SEASON}")
            assert table.status_code == page.status_code == 200
            body: dict[str, Any] = table.json()
            return body, page.text


def test_the_recorded_rounds_are_the_rounds_a_replay_of_the_bars_trades_in(
    season: tuple[SeasonState, str], shared_data: Path
) -> None:
    """The board's null reads the very prices and halts ``stats null`` replays the bars for."""
    state, _ = season
    dataset = load_dataset(shared_data / "us_equities_daily", symbols=SYMBOLS)
    symbols, replayed = season_rounds(dataset, START, END, Division.OPEN, WeightsPreset())
    recorded_symbols, recorded = state_rounds(state, Division.OPEN)
    assert recorded_symbols == symbols
    assert len(recorded) == len(replayed) == len(state.agents["cash"].entries) >= 5
    for a, b in zip(recorded, replayed, strict=True):
        assert np.array_equal(a.prices, b.prices)
        assert np.array_equal(a.halted, b.halted)


def test_the_boards_line_equals_stats_null_over_the_same_season(
    season: tuple[SeasonState, str], shared_data: Path
) -> None:
    """Same season, same seed, same N: the API's line, REPORT.json's and the CLI's agree exactly."""
    state, url = season
    seed = null_seed(SEASON, Division.OPEN)
    assert seed == null_seed(SEASON, Division.OPEN) != null_seed(SEASON, Division.PRO)
    assert seed != null_seed("another season", Division.OPEN)
    printed = _null_cli(shared_data, len(SPECS), seed)
    table, _ = _get(url)
    line = table["significance"]["luckiest_of_n"]
    # ST-2's expected best of N: `stats null --best-of N` over the cloud's agents prints it
    best = _null_cli(shared_data, CLOUD_AGENTS, seed, "--best-of", str(len(SPECS)))
    assert (best["best_of"], best["seasons"]) == (len(SPECS), CLOUD_AGENTS // len(SPECS))
    assert line == {
        **printed,
        "kind": "random-weights",
        "seed": seed,
        "method": "simulated under the league's rules",
        "expected_best": best["expected_best"],
        "seasons": best["seasons"],
    }
    assert line["agents"] == len(table["rows"]) == len(SPECS)
    assert line["rounds"] == len(state.agents["cash"].entries)  # what it rests on (ST-1)
    assert all(Decimal(v) == round(Decimal(v), 2) for v in line["quantiles"].values())  # ST-3
    report = build_report(state)
    assert report["significance"]["open"] == table["significance"]
    empty = report["significance"]["pro"]["luckiest_of_n"]
    assert (empty["agents"], empty["luckiest"], empty["quantiles"]) == (0, None, None)
    assert (empty["expected_best"], empty["seasons"]) == (None, 0)
    # The cloud is the same null with more agents: `stats null --agents 1000` prints it.
    cloud = table["baseline_cloud"]
    again = _null_cli(shared_data, CLOUD_AGENTS, seed)
    assert {k: cloud[k] for k in again} == again
    assert {k: best[k] for k in again} == again  # --best-of adds to the same draw
    assert (cloud["seed"], cloud["kind"]) == (seed, "random-weights")
    # The terminal table's caption carries the same line.
    console = Console(width=400, record=True)
    console.print(render_table(state, Division.OPEN))
    text = " ".join(console.export_text().split())
    assert (
        f"Luckiest of {len(SPECS)} agents with no skill: {Decimal(best['expected_best']):+.2f}% "
        f"expected (the best of {len(SPECS)} random-weights agents, averaged over "
        f"{best['seasons']} simulated seasons under the league's rules over "
        f"{printed['rounds']} rounds, seed {seed}; one season of {len(SPECS)}: best "
        f"{Decimal(printed['luckiest']):+.2f}%,"
    ) in text


def test_the_season_page_draws_the_cloud_with_its_numbers_as_the_api_serves(
    season: tuple[SeasonState, str],
) -> None:
    """The page's SVG, its bins table and its marks table hold the API's numbers, row by row."""
    state, url = season
    table, page = _get(url)
    cloud = table["baseline_cloud"]
    assert sum(b["agents"] for b in cloud["bins"]) == cloud["agents"] == CLOUD_AGENTS
    section = page[page.index('id="div-open"') :]
    figure = re.search(r'<figure class="cloud" data-cloud="open">(.*?)</figure>', section, re.S)
    assert figure is not None
    svg = figure.group(1)
    assert svg.count('class="chart-bar"') == len(cloud["bins"])
    assert svg.count('class="chart-mark"') == len(table["rows"])
    assert 'role="img"' in svg

    def table_of(kind: str) -> str:
        pattern = rf'<table class="{kind}" data-cloud="open">(.*?)</table>'
        found = re.search(pattern, section, re.S)
        assert found is not None, kind
        return found.group(1)

    cells = re.findall(r'<td class="num">([^<]*)</td>', table_of("cloud-bins"))
    assert cells == [str(x) for b in cloud["bins"] for x in (b["low"], b["high"], b["agents"])]
    shown = re.findall(
        r'<tr data-mark="([^"]*)"><td>[^<]*</td><td class="num" data-field="mark_return">'
        r'([^<]*)</td><td class="num" data-field="below">([^<]*)</td></tr>',
        table_of("cloud-marks"),
    )
    assert shown == [(m["agent"], m["season_return"], m["below"]) for m in cloud["marks"]]
    rows = {r["agent"]: r for r in table["rows"]}
    null = season_null(state, Division.OPEN, len(SPECS))
    assert null is not None
    for m in cloud["marks"]:
        assert m["season_return"] == rows[m["agent"]]["season_return"]
        value = int(Decimal(rows[m["agent"]]["value"]) * 10**6)
        below = int(np.sum(null.cloud.values < value))
        assert Decimal(m["below"]) == round(Decimal(100 * below) / CLOUD_AGENTS, 2)
    line = table["significance"]["luckiest_of_n"]
    luck = re.search(r'<p class="luck" data-field="luckiest_of_n">(.*?)</p>', section, re.S)
    assert luck is not None
    assert f"returned {line['luckiest']}%" in luck.group(1)
    assert f'<span data-field="expected_best">{line["expected_best"]}</span>%' in luck.group(1)
    assert f"averaged over {line['seasons']} simulated seasons" in luck.group(1)
    assert f"median {line['quantiles']['p50']}%" in luck.group(1)
    assert f"over the division's {line['rounds']} rounds, seed {line['seed']}" in luck.group(1)
    # a division with no agent has no cloud and says why it has no line
    pro = page[page.index('id="div-pro"') : page.index('id="div-open"')]
    assert "<figure" not in pro
    assert "no agents with no skill simulated yet" in pro


def test_a_cloud_bins_every_agent_and_places_a_value_exactly() -> None:
    """Equal bins hold every value once, the best in the last; the share below is exact."""
    start = 10_000 * 10**6
    values = np.array([start - 5 * 10**6, start, start, start + 10**6, start + 3 * 10**6])
    cloud = NullCloud.of(values.astype(np.int64), start, 4)
    assert cloud.summary == null_summary(values.astype(np.int64), start, 4)
    bins = cloud.bins(4)
    assert [n for _, _, n in bins] == [1, 0, 3, 1]  # width 2,000,001 micro-dollars
    assert bins[0][0] == Decimal("-0.05")
    assert bins[-1][1] >= Decimal("0.03")
    assert cloud.share_below(start) == Decimal("20.00")  # one of five below, ties not below
    assert cloud.share_below(start + 1) == Decimal("60.00")
    assert cloud.share_below(10**12) == Decimal("100.00")


def test_the_line_is_cached_with_the_tables_verdicts(
    season: tuple[SeasonState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The null runs once per table and event count: a second read serves the kept line."""
    from tradeleague.league.weights import report

    _, url = season
    calls: list[Division] = []
    real = report.season_null  # type: ignore[attr-defined]  # patched where report reads it

    def counting(state: SeasonState, division: Division, agents: int) -> Any:
        calls.append(division)
        return real(state, division, agents)

    monkeypatch.setattr(report, "season_null", counting)
    with open_store(url) as store:
        site = create_site(ScenarioService(store, WallClock()))
        with TestClient(site) as client:
            first = client.get(f"/api/v1/weights/seasons/{SEASON}/tables/open").json()
            client.get(f"/weights/{SEASON}")
            second = client.get(f"/api/v1/weights/seasons/{SEASON}/tables/open").json()
    assert first == second
    assert calls.count(Division.OPEN) == 1
