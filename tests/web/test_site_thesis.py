"""The thesis league's pages and JSON read the same figures (T-SCO-1, T-CYC-10, ST-1, ST-2)."""

from __future__ import annotations

import asyncio
import html
import json
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.agents.base import Agent
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.clock import WallClock
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.baselines import make_baseline
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.thesis.cycle import Entrant
from tradeleague.league.thesis.data import load_tape
from tradeleague.league.thesis.null import CLOUD_AGENTS, season_null
from tradeleague.league.thesis.replay import run_season
from tradeleague.league.thesis.state import SeasonState
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.web.formatting import money, qty, when
from web.cloud_tables import bin_cells, cloud_tables  # type: ignore[import-not-found]

EVIL = "<script>alert(1)</script> & more"


def _answer(*decisions: dict[str, object]) -> str:
    return json.dumps(
        {
            "reasoning": f"Reasoning {EVIL}.",
            "market_context": {"overall_sentiment": "bullish", "key_factors": []},
            "decisions": list(decisions),
        }
    )


@pytest.fixture(scope="module")
def site_db(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store holding a three-day thesis season: cash, coin flip and a scripted model."""
    tmp = tmp_path_factory.mktemp("thesis_site")
    tape = load_tape(load_universe(), shared_data / "crypto_4h", shared_data / "us_equities_daily")
    script = tmp / "m.jsonl"
    first = _answer(
        {"action": "open_long", "symbol": "ETH", "percent_of_equity": 25, "confidence": 0.9,
         "invalidation_price": 1, "thesis": f"Thesis {EVIL}", "invalidation": "Below 1"},
    )  # fmt: skip
    script.write_text(json.dumps({"text": first}) + "\n", encoding="utf-8")
    # AMAT's close on 3 March 2025 is its level: seen after the bell, closed at the next open
    stock = tmp / "s.jsonl"
    breaks = _answer(
        {"action": "open_long", "symbol": "AMAT", "percent_of_equity": 10, "confidence": 0.8,
         "invalidation_price": 150.5939, "thesis": "Chips", "invalidation": "The close"},
    )  # fmt: skip
    stock.write_text(json.dumps({"text": breaks}) + "\n", encoding="utf-8")
    agents: dict[str, Agent] = {
        "cash": BaselineAgent("cash", *make_baseline("cash")),
        "coin_flip": BaselineAgent("coin_flip", *make_baseline("coin_flip")),
        "model/one": ScriptedAgent.from_file("model/one", script),
        "stock": ScriptedAgent.from_file("stock", stock),
    }
    entrants = [Entrant(name=n, spec=n, kind=a.kind, agentic=False) for n, a in agents.items()]
    url = f"sqlite:///{tmp / 'site.db'}"
    with open_store(url) as store:
        asyncio.run(
            run_season(
                store, tape, entrants, agents, season_id="t1", start=date(2025, 3, 3),
                end=date(2025, 3, 6), sources={"crypto": "c", "stocks": "s"},
            )
        )  # fmt: skip
    return url


def _client(url: str) -> TestClient:
    store = open_store(url)
    return TestClient(create_site(ScenarioService(store, WallClock())))


def test_board_page_and_json_agree_t_sco_1_st_1_st_2(site_db: str) -> None:
    """T-SCO-1, ST-1, ST-2: the board page shows every metric, the counts and the verdicts.

    The verdicts read in words with their direction; an agent that held no position
    (cash) follows the ranked ones, unranked, with its reason (ours).
    """
    with _client(site_db) as client:
        assert client.get("/api/v1/thesis").json()["seasons"] == ["t1"]
        board = client.get("/api/v1/thesis/t1").json()
        page = client.get("/thesis/t1")
    assert page.status_code == 200
    assert board["cycles"] == 3
    assert [r["rank"] for r in board["rows"]] == [1, 2, 3, None]
    assert board["rows"][-1]["unranked_reason"] == "no_position"
    assert [r["unranked_reason"] for r in board["rows"][:3]] == [None, None, None]
    for row in board["rows"]:
        cells = re.search(rf'<tr data-agent="{re.escape(row["name"])}">(.*?)</tr>', page.text)
        assert cells is not None
        nums = re.findall(r'<td class="num"[^>]*>([^<]*)</td>', cells.group(1))
        assert nums[0] == ("–" if row["rank"] is None else str(row["rank"]))
        words = re.search(r'<td data-field="vs_cash"[^>]*>([^<]*)</td>', cells.group(1))
        assert words is not None
        assert words.group(1).endswith(" cash") or words.group(1) == "too few steps to test"
        assert row["vs_cash"] in ("better", "worse", "not_distinguishable", "too_few")
        unranked = re.search(r'<td data-field="unranked"[^>]*>([^<]*)</td>', cells.group(1))
        assert unranked is not None
        assert unranked.group(1) == (row["unranked_text"] or "")
        assert nums[1] == row["return"]
        counts = [
            re.search(rf'data-field="{k}"[^>]*>([^<]*)</td>', cells.group(1))
            for k in ("trades", "closed_trades", "decisions")
        ]
        assert [c.group(1) if c else None for c in counts] == [
            str(row["trades"]), str(row["closed_trades"]), str(row["decisions"])
        ]  # fmt: skip
        beta = re.search(r'data-field="beta"[^>]*>([^<]*)</td>', cells.group(1))
        assert beta is not None
        assert beta.group(1) == (row["alpha"]["beta"] if row["alpha"] else "–")
    assert "vs holding SPY" in page.text
    assert "held no position this season" in page.text
    assert ">yes<" not in page.text
    # C-5: what each agent's calls cost, beside its result, on the board and in its JSON
    assert set(board["costs"]["agents"]) == {r["name"] for r in board["rows"]}
    for row in board["rows"]:
        cost = board["costs"]["agents"][row["name"]]
        assert cost["return"] == row["return"]
    assert 'data-board="costs"' in page.text
    assert "No price table: every model is unpriced" in page.text
    assert "no skill" in page.text


def test_agent_page_shows_every_decision_escaped_t_cyc_10(site_db: str) -> None:
    """T-CYC-10, C-10: every decision with its thesis, level and reasoning, model text escaped."""
    with _client(site_db) as client:
        data = client.get("/api/v1/thesis/t1/agents/model/one").json()
        page = client.get("/thesis/t1/agents/model%2Fone")
        missing = client.get("/thesis/nope")
        missing_json = client.get("/api/v1/thesis/t1/agents/nobody")
    first = data["entries"][0]["decisions"][0]
    assert (first["action"], first["symbol"], first["status"]) == ("open_long", "ETH", "executed")
    assert first["thesis"] == "Thesis &lt;script&gt;alert(1)&lt;/script&gt; &amp; more"
    assert page.status_code == 200
    assert "<script>alert" not in page.text
    assert "Thesis &lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page.text
    assert first["invalidation_price"] == "1.000000"
    assert ">$1.00<" in page.text  # the page's formatting layer: to the cent
    assert missing.status_code == 404
    assert missing_json.status_code == 404
    # beta and alpha against SPY: the scatter of its rounds with the fitted line, and the numbers
    assert "Market exposure and alpha" in page.text
    assert data["alpha"] is None  # three cycles are too few steps to fit a line: it says so
    assert "Too few rounds to fit a line against SPY." in page.text


def test_thesis_methodology_page_follows_the_preset(site_db: str) -> None:
    """The thesis methodology page lists the preset's settings, reason codes and our decisions."""
    with _client(site_db) as client:
        page = client.get("/methodology/thesis")
    assert page.status_code == 200
    found = re.search(
        r'<tr data-setting="fee_ppm"><td>fee_ppm</td><td class="value">([^<]*)</td>', page.text
    )
    assert found is not None
    assert found.group(1) == str(ThesisPreset().fee_ppm)
    assert "<code>confidence_gate</code>" in page.text
    assert "Screen score" in page.text
    assert not re.search(r"\bT-[A-Z]{3}-\d", page.text)


def test_home_page_lists_the_thesis_league_and_its_seasons(site_db: str) -> None:
    """The home page names every format this site runs, the thesis league with its seasons."""
    with _client(site_db) as client:
        home = client.get("/")
        seasons = client.get("/api/v1/thesis").json()["seasons"]
    assert home.status_code == 200
    assert "This site runs 4 formats." in home.text
    assert '<a href="/thesis">Thesis league</a>' in home.text
    for season in seasons:
        assert f'<a href="/thesis/{season}">{season}</a>' in home.text


def test_agent_page_shows_the_monitor_closes_t_mon_1(site_db: str) -> None:
    """T-MON-1: a close the monitor made is on the agent's page as the JSON API has it,
    with the break seen after the bell and the next session's open it was closed at."""
    with _client(site_db) as client:
        data = client.get("/api/v1/thesis/t1/agents/stock").json()
        page = client.get("/thesis/t1/agents/stock").text
        quiet = client.get("/thesis/t1/agents/cash").text
    [close] = data["monitor_closes"]
    assert (close["symbol"], close["level"]) == ("AMAT", "150.593900")
    assert close["broken_time"] == "2025-03-03T21:00:00.000000Z"
    assert close["time"] == "2025-03-04T14:30:00.000000Z"
    row = re.search(r"<table class=\"log closes cards\">.*?<tbody><tr>(.*?)</tr>", page, re.S)
    assert row is not None
    cells = dict(re.findall(r'data-field="(\w+)"[^>]*>(.*?)</td>', row.group(1)))
    assert cells["symbol"] == "AMAT"
    # as the one formatting layer shows them: a <time datetime>, a trimmed quantity, cents
    assert cells["time"] == str(when(close["time"]))
    assert cells["quantity"] == str(qty(close["quantity"]))
    for field in ("price", "level", "fee"):
        assert cells[field] == money(close[field]), field
    assert cells["broken"] == (
        f"{when(close['broken_time'])} at {money(close['broken_price'])}, "
        "while the market was closed"
    )
    assert "Closed by the invalidation monitor</h2>\n<p>None.</p>" in quiet


def test_c3_the_thesis_methodology_page_shows_the_changelog(site_db: str) -> None:
    """C-3, T-AGT-1: the season's opening terms, versions, universe and entries, dated."""
    from tradeleague.formats.thesis.universe import load_universe

    with _client(site_db) as client:
        served = client.get("/api/v1/thesis/changelog").json()["changes"]
        html = client.get("/methodology/thesis").text
        assert "/api/v1/thesis/changelog" in client.get("/api/v1/thesis").json()["endpoints"]
    universe = load_universe()
    changes = [(c["date"], c["change"]) for c in served]
    assert changes[0] == (
        "2025-03-03",
        "Season t1 opened (2025-03-03 to 2025-03-06, the end excluded): "
        "accounts start at 10000.000000 USD.",
    )
    assert changes[1][1].startswith("Scoring version thesis-scoring-")
    assert changes[2][1].startswith("Prompt version ")
    assert changes[3][1].startswith(
        f"Universe: {len(universe.crypto)} cryptocurrencies and {len(universe.stocks)} stocks ("
    )
    assert changes[4][1] == "Benchmarks (never held): " + ", ".join(universe.benchmarks) + "."
    entered = [c for _, c in changes if c.startswith("Roster: ")]
    assert entered == [
        "Roster: cash entered at cycle 0.",
        "Roster: coin_flip entered at cycle 0.",
        "Roster: model/one entered at cycle 0.",
        "Roster: stock entered at cycle 0.",
    ]
    assert changes[-1][1] == "Season t1 ended."
    assert "<h2>Changelog</h2>" in html
    assert '<a href="/api/v1/thesis/changelog">' in html
    assert "<time>2025-03-03</time> Season t1 opened" in html


def _season(url: str, season: str) -> SeasonState:
    """Return the season folded from the store's record alone."""
    state = SeasonState(ThesisPreset())
    with open_store(url) as store:
        for stored in store.events(tev.season_stream(season)):
            state.apply(stored.event)
    return state


@pytest.fixture(scope="module")
def older_db(site_db: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The same season as written before a cycle recorded its null prices, folders not at hand."""
    url = f"sqlite:///{tmp_path_factory.mktemp('thesis_older') / 'older.db'}"
    with open_store(site_db) as store, open_store(url) as older:
        older.append(s.event for s in store.events() if s.event.kind != tev.NULL_PRICES_READ)
    return url


def test_board_json_carries_the_null_cloud_with_every_agent_marked_st_2(site_db: str) -> None:
    """ST-2: the board's cloud is the season's null from its record (its folders are not at
    hand), each agent's final value placed in it."""
    with _client(site_db) as client:
        board = client.get("/api/v1/thesis/t1").json()
        again = client.get("/api/v1/thesis/t1").json()
    state = _season(site_db, "t1")
    null = season_null(state, None, len(board["rows"]))
    assert null is not None
    cloud = board["baseline_cloud"]
    assert cloud["kind"] == "coin-flip" == board["luckiest_of_n"]["kind"]
    assert cloud["agents"] == CLOUD_AGENTS == board["luckiest_of_n"]["simulations"]
    assert cloud["rounds"] == board["cycles"] == 3
    assert cloud["luckiest"] == str(null.cloud.summary.luckiest)
    assert cloud["quantiles"] == {k: str(v) for k, v in null.cloud.summary.quantiles.items()}
    assert [(b["low"], b["high"], b["agents"]) for b in cloud["bins"]] == [
        (str(lo), str(hi), n) for lo, hi, n in null.cloud.bins()
    ]
    assert sum(b["agents"] for b in cloud["bins"]) == CLOUD_AGENTS
    assert board["luckiest_of_n"]["expected_best_return"] == str(null.expected_best)
    # one mark per board row, in the board's order: its return and the share below its value
    assert [m["agent"] for m in cloud["marks"]] == [r["name"] for r in board["rows"]]
    for mark, row in zip(cloud["marks"], board["rows"], strict=True):
        assert mark["season_return"] == row["return"]
        final = state.agents[row["name"]].equity[-1]
        assert mark["below"] == str(null.cloud.share_below(final))
    cash = next(m for m in cloud["marks"] if m["agent"] == "cash")
    assert Decimal(cash["season_return"]) == 0  # cash never trades: it ends where it started
    assert again == board  # seeded by the season: the same cloud every read


def test_board_page_draws_the_cloud_as_the_json_serves_it_st_2(site_db: str) -> None:
    """ST-2: the season page's SVG, bins and marks hold the board JSON's numbers."""
    with _client(site_db) as client:
        board = client.get("/api/v1/thesis/t1").json()
        page = client.get("/thesis/t1").text
    cloud = board["baseline_cloud"]
    figure = re.search(r'<figure class="cloud" data-cloud="thesis">(.*?)</figure>', page, re.S)
    assert figure is not None
    svg = figure.group(1)
    assert svg.count('class="chart-bar"') == len(cloud["bins"])
    titles = re.findall(r'class="chart-mark"[^>]*><title>([^<]*)</title>', svg)
    want = [f"{m['name']}: {float(m['season_return']):+.2f}%" for m in cloud["marks"]]
    assert titles == [html.escape(t) for t in want]
    assert f"final returns of {CLOUD_AGENTS} agents with no skill" in svg
    cells, marks = cloud_tables(page, "thesis")
    assert cells == bin_cells(cloud)
    assert marks == [
        (html.escape(m["agent"]), m["season_return"], m["below"]) for m in cloud["marks"]
    ]
    line = board["luckiest_of_n"]
    assert f": {line['expected_best_return']}%;" in page
    assert f"over the season's {cloud['rounds']} cycles), and the dashed line" in page
    assert "Each red line is an agent of this board" in page
    assert "No baseline cloud" not in page


def test_a_season_without_its_null_prices_says_it_has_no_cloud_st_2(older_db: str) -> None:
    """ST-2: recorded before its null prices, folders not at hand: no line, no cloud, in words."""
    with _client(older_db) as client:
        board = client.get("/api/v1/thesis/t1").json()
        page = client.get("/thesis/t1").text
    assert len(board["rows"]) == 4  # the board itself is the record's, as before
    assert board["luckiest_of_n"] is None
    assert board["baseline_cloud"] is None
    assert '<figure class="cloud"' not in page
    assert "4 agents with no skill: not simulated" in page
    assert '<p data-field="baseline_cloud">No baseline cloud either:' in page
