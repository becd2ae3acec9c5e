"""What a thesis season shows its models and writes to REPORT.json, field by field (issue 14).

One week replayed over the frozen folders (Monday to the next Monday, so a
weekend is inside): a holder opens a stock and a crypto short that no screen
picks, a second model is stopped by the monitor, a watcher never trades and
cash stays in cash. The prompts they were sent and the report built from the
store must hold what the rules and the issue's REPORT.json list name.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest
from rich.console import Console
from test_thesis_replay import (  # type: ignore[import-not-found]
    END,
    SOURCES,
    START,
    Spy,
    _answer,
    _baseline,
    _breaking_cycle,
    _entr,
    _open,
    _price,
    tape,
)

from tradeleague.agents.base import Turn
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import PROMPT_VERSION, SCORING_VERSION, ThesisPreset
from tradeleague.formats.thesis.universe import load_universe, normalise
from tradeleague.league.thesis.board_table import board_table
from tradeleague.league.thesis.null import board_null
from tradeleague.league.thesis.replay import cycle_times, run_season
from tradeleague.league.thesis.report import board_rows, build_report
from tradeleague.league.thesis.state import SeasonState
from tradeleague.money import micros_to_str
from tradeleague.store import open_store

__all__ = ["tape"]  # the module-scoped fixture, shared with the replay tests

WEEK_END = date(2025, 3, 10)  # exclusive: 3..9 March, Saturday 8 and Sunday 9 inside
SATURDAY = "2025-03-08"
TWO_PLACES = re.compile(r"^-?\d+\.\d{2}$")
UNIVERSE = load_universe()
CRYPTO = {normalise(s) for s in UNIVERSE.crypto}


@dataclass
class Week:
    """The replayed week: its folded state, the report and the models that were asked."""

    state: SeasonState
    report: Any
    holder: Spy
    watcher: Spy
    levels: dict[str, int]


@pytest.fixture(scope="module")
def week(tape: MarketTape, tmp_path_factory: pytest.TempPathFactory) -> Week:
    """Play the week once for every test of this module."""
    assert END > WEEK_END  # the replay module's 28-day season starts on the same Monday
    brk, ltc = _price(tape, "BRK-B", 0), _price(tape, "LTCUSDT", 0)
    cycle, eth = _breaking_cycle(tape, falls=True)
    levels = {"BRK.B": brk // 2, "LTC": ltc * 2, "ETH": eth - 1}
    first = _answer(
        _open("BRK.B", levels["BRK.B"], thesis="Book value compounds."),
        _open("LTC", levels["LTC"], short=True, pct=15, thesis="Fees migrate away."),
    )
    holder, watcher = Spy("holder", [first]), Spy("watcher", [])
    stopped = Spy("stopped", [*[_answer()] * cycle, _answer(_open("ETH", levels["ETH"]))])
    roster = [
        (_entr("cash", "baseline"), _baseline("cash")),
        (_entr("holder"), holder),
        (_entr("watcher"), watcher),
        (_entr("stopped"), stopped),
    ]
    url = f"sqlite:///{tmp_path_factory.mktemp('thesis_report') / 'w.db'}"
    with open_store(url) as store:
        state = asyncio.run(
            run_season(
                store, tape, [e for e, _ in roster], {e.name: a for e, a in roster},
                season_id="week", start=START, end=WEEK_END, sources=SOURCES,
            )
        )  # fmt: skip
    return Week(state, build_report(state, board_null(state, tape)), holder, watcher, levels)


def _body(turns: list[Turn], day: str) -> dict[str, Any]:
    """Return the user message of the first attempt's prompt at ``day``'s cycle, as JSON."""
    (turn,) = [t for t in turns if t.key.round.startswith(day) and t.key.turn == 0]
    body: dict[str, Any] = json.loads(turn.messages[-1].content)
    return body


def test_prompt_carries_holdings_theses_and_closed_day_rows_t_cyc_5_t_mon_2_t_uni_3(
    week: Week,
) -> None:
    """T-CYC-5, T-MON-2, T-UNI-3: held names get candles, theses come back, stock rows close."""
    screened = {r["symbol"] for r in week.report["cycles"][1]["screen"]["stocks"]}
    screened |= {r["symbol"] for r in week.report["cycles"][1]["screen"]["crypto"]}
    assert {"BRK.B", "LTC"}.isdisjoint(screened)  # only holding them brings their candles
    tuesday = _body(week.holder.turns, "2025-03-04")
    held = {p["symbol"]: p for p in tuesday["account"]["positions"]}
    assert set(held) == {"BRK.B", "LTC"}
    assert held["BRK.B"]["thesis"] == "Book value compounds."  # T-MON-2: carried forward
    assert held["LTC"]["thesis"] == "Fees migrate away."
    assert held["BRK.B"]["invalidation_price"] == micros_to_str(week.levels["BRK.B"])
    assert held["LTC"]["invalidation_price"] == micros_to_str(week.levels["LTC"])
    assert Decimal(held["LTC"]["quantity"]) < 0 < Decimal(held["BRK.B"]["quantity"])
    assert {"unrealised_pnl", "confidence", "invalidation"} <= set(held["LTC"])
    detail = {a["symbol"]: a for a in tuesday["screened_and_held"]}
    assert {"BRK.B", "LTC"} <= set(detail)
    assert detail["LTC"]["candles"]["4h"]
    assert detail["BRK.B"]["candles"]["1d"]
    assert [b["symbol"] for b in tuesday["benchmarks"]] == ["BTC", "SPY"]
    assert len(tuesday["universe"]) == 60  # a trading day: every universe row
    for spy, stocks in ((week.holder, {"BRK.B"}), (week.watcher, set())):
        saturday = _body(spy.turns, SATURDAY)
        rows = {r["symbol"] for r in saturday["universe"]}
        assert rows == CRYPTO | stocks  # T-UNI-3: held stocks stay, the others are gone
        shown = {a["symbol"] for a in saturday["screened_and_held"]}
        assert shown - CRYPTO == stocks
        assert [b["symbol"] for b in saturday["benchmarks"]] == ["BTC", "SPY"]
    assert "BRK.B" in {p["symbol"] for p in _body(week.holder.turns, SATURDAY)["account"][
        "positions"
    ]}  # fmt: skip


def _decimal(text: object) -> Decimal:
    assert isinstance(text, str), text
    return Decimal(text)


def test_report_json_has_every_field_the_issue_names(week: Week) -> None:
    """T-CYC-10, T-SCO-1: REPORT.json's versions, cycles, entries, monitor closes, metrics, rank."""
    report = week.report
    assert report["scoring_version"] == SCORING_VERSION
    assert report["prompt_version"] == PROMPT_VERSION
    times = cycle_times(START, WEEK_END, ThesisPreset())
    cycles = report["cycles"]
    assert [datetime.fromisoformat(c["time"]).timestamp() for c in cycles] == times
    for index, cycle in enumerate(cycles):
        weekend = cycle["time"][:10] >= SATURDAY
        assert set(cycle["screen"]) == {"crypto", "stocks"}
        assert len(cycle["screen"]["crypto"]) == 5
        assert len(cycle["screen"]["stocks"]) == (0 if weekend else 5)
        for row in cycle["screen"]["crypto"] + cycle["screen"]["stocks"]:
            assert set(row) == {"symbol", "score"}
            assert row["symbol"] == normalise(row["symbol"])
            assert "USDT" not in row["symbol"]
            assert TWO_PLACES.match(row["score"])
            assert _decimal(row["score"]) > 0
        screened = {r["symbol"] for r in cycle["screen"]["crypto"] + cycle["screen"]["stocks"]}
        held = {"BRK.B", "LTC"} if index else set()
        assert screened | held | {"BTC", "SPY"} <= set(cycle["prices"])
        assert set(cycle["rsi"]) == set(cycle["prices"])
        for symbol, rsi in cycle["rsi"].items():
            assert set(rsi) == {"4h", "1d", "1w"}
            assert rsi["4h"] is None or symbol in CRYPTO | {"BTC"}  # stocks: no hourly folder
            for value in rsi.values():
                assert value is None or (TWO_PLACES.match(value) and 0 <= Decimal(value) <= 100)
            assert rsi["1d"] is not None
        for price in cycle["prices"].values():
            assert _decimal(price) > 0
    agents = {a["name"]: a for a in report["agents"]}
    assert set(agents) == {"cash", "holder", "watcher", "stopped"}
    for agent in agents.values():
        for entry in agent["entries"]:
            assert entry["cycle"] in {c["time"] for c in cycles}
            assert entry["attempt"] in (1, 2)
            assert isinstance(entry["raw_answer"], str)
            for d in entry["decisions"]:
                assert {"action", "symbol", "status", "reason_code"} <= set(d)
                assert {"quantity", "price", "fee"} <= set(d)
                if d["status"] == "executed":
                    assert d["reason_code"] is None
                    assert _decimal(d["price"]) > 0
                    assert _decimal(d["fee"]) > 0
                else:
                    assert d["status"] == "rejected"
                    assert d["reason_code"]
                    assert d["quantity"] is d["price"] is d["fee"] is None
            money = [_decimal(entry["equity"]), _decimal(entry["cash"])]
            assert all(m > 0 for m in money)
        assert set(agent["metrics"]) == {
            "return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure",
        }  # fmt: skip
        assert agent["rank"] in (1, 2, 3, None)
        assert agent["verdicts"]["vs_cash"] in ("better", "worse", "not_distinguishable")
    # ours: an agent that never held a position is listed after the ranked ones, unranked
    for idle in ("cash", "watcher"):
        assert agents[idle]["rank"] is None
        assert agents[idle]["unranked_reason"] == "no_position"
        assert agents[idle]["unranked_text"] == "held no position this season"
    assert {n: a["rank"] for n, a in agents.items() if a["rank"] is not None}.keys() == {
        "holder",
        "stopped",
    }
    assert sorted(a["rank"] for a in agents.values() if a["rank"] is not None) == [1, 2]
    # beta and alpha against SPY: the cash agent has no exposure and no alpha; seeded per agent
    cash_fit = agents["cash"]["alpha"]
    assert cash_fit is not None
    assert (cash_fit["beta"], cash_fit["alpha_per_step"]) == ("0.000", "0.0000")
    assert cash_fit["outcome"] == "not_distinguishable"
    assert len(agents["holder"]["scatter"]) == agents["holder"]["alpha"]["steps"]
    again = build_report(week.state, None)["agents"]
    assert isinstance(again, list)
    assert [a["alpha"] for a in again] == [a["alpha"] for a in agents.values()]
    opened = agents["holder"]["entries"][0]
    assert [(d["action"], d["symbol"], d["status"]) for d in opened["decisions"]] == [
        ("open_long", "BRK.B", "executed"),
        ("open_short", "LTC", "executed"),
    ]
    positions = opened["positions"]
    qty = {d["symbol"]: _decimal(d["quantity"]) for d in opened["decisions"]}
    assert _decimal(positions["BRK.B"]) == qty["BRK.B"] > 0  # signed: a long is positive
    assert _decimal(positions["LTC"]) == -qty["LTC"] < 0  # and a short negative
    worth = sum(_decimal(positions[s]) * _decimal(d["price"]) for s, d in (
        (d["symbol"], d) for d in opened["decisions"]
    ))  # fmt: skip
    assert abs(_decimal(opened["cash"]) + worth - _decimal(opened["equity"])) <= Decimal("0.00001")
    (close,) = agents["stopped"]["monitor_closes"]
    assert set(close) == {"time", "symbol", "level", "price", "quantity", "fee"}
    assert close["symbol"] == "ETH"
    assert _decimal(close["level"]) == Decimal(micros_to_str(week.levels["ETH"]))
    assert _decimal(close["price"]) <= _decimal(close["level"])
    assert datetime.fromisoformat(close["time"]).minute % 15 == 0
    assert agents["holder"]["monitor_closes"] == []
    assert agents["cash"]["metrics"]["return"] == "0.00"
    assert agents["cash"]["metrics"]["exposure"] == "0.00"
    assert agents["stopped"]["metrics"]["win_rate"] == "0.00"  # its one closed trade lost


def test_cli_board_table_shows_metrics_counts_verdicts_and_luck_st_1_st_2(
    week: Week, tape: MarketTape
) -> None:
    """T-SCO-1, ST-1, ST-2: the terminal board has every metric, its counts, both verdicts."""
    rows = board_rows(week.state, board_null(week.state, tape))
    console = Console(width=250, record=True, color_system=None)
    console.print(board_table(rows))
    text = console.export_text()
    for head in (
        "return", "max drawdown", "sharpe", "sortino", "win rate", "exposure", "trades",
        "closed trades", "decisions", "vs cash", "vs SPY",
    ):  # fmt: skip
        assert head in text, head
    lines = {line.split("│")[2].strip(): line for line in text.splitlines() if line.count("│") > 5}
    for row in rows:
        cells = [c.strip() for c in lines[str(row["name"])].split("│")[1:-1]]
        assert cells[0] == ("-" if row["rank"] is None else str(row["rank"]))
        assert cells[2] == row["return"]
        assert cells[8:11] == [str(row["trades"]), str(row["closed_trades"]), str(row["decisions"])]
    stopped = next(r for r in rows if r["name"] == "stopped")
    assert (stopped["trades"], stopped["closed_trades"]) == (2, 1)  # the open and the monitor
    luck = rows[0]["luckiest_of_n"]
    assert luck is not None
    assert f"Luckiest of {len(rows)} agents with no skill: {luck}%" in text
    assert week.report["luckiest_of_n"]["expected_best_return"] == luck
