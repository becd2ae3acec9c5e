"""The thesis board's luckiest-of-N line: coin agents simulated in arrays, as replayed (ST-2).

The null's agent ``null-<i>`` is the coin-flip baseline of that name in the
season; simulated over the season's recorded cycles and its tape, each must
end on the equity its replay through the event path ends on, to the
micro-dollar: monitor closes, no-reopen rejections and fees included. The
season records the prices the null reads (``NullPricesRead``), so the same
null comes from the record alone, as a live season's must; a record written
before them still gets its line from its tape, and a record whose null prices
are not its tape's gets none.
"""

from __future__ import annotations

import asyncio
import tempfile
from datetime import date, timedelta
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_thesis_replay import SOURCES, tape  # type: ignore[import-not-found]

from tradeleague.events import check_payload
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.null import (
    CLOUD_AGENTS,
    null_cycles,
    null_names,
    null_values,
    season_null,
)
from tradeleague.league.thesis.replay import run_season
from tradeleague.league.thesis.report import board_rows, build_report
from tradeleague.league.thesis.state import SeasonState
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.stats.null import expected_best
from tradeleague.store import open_store

__all__ = ["tape"]  # the module-scoped fixture, shared with the replay tests

FTX_WEEK = date(2022, 11, 7)  # crypto fell 10% and more within days: the monitor closes


def _replay(tape: MarketTape, season: str, start: date, days: int, agents: int) -> SeasonState:
    """Replay ``agents`` coin flippers named as the null's agents; return the folded season."""
    texts = [f"{name}=baseline:coin-flip" for name in null_names(agents)]
    entrants, built = build_roster(texts, [], ReplayGateway(RecordedAnswers([])), season=season)
    with (
        tempfile.TemporaryDirectory(prefix="thesis-null-") as tmp,
        open_store(f"sqlite:///{Path(tmp) / 'n.db'}") as store,
    ):
        return asyncio.run(
            run_season(
                store, tape, entrants, built, season_id=season, start=start,
                end=start + timedelta(days=days), sources=SOURCES,
            )
        )  # fmt: skip


@settings(max_examples=6)
@given(
    season=st.text("abcdefgh-0123", min_size=1, max_size=8),
    start=st.dates(date(2022, 1, 1), date(2025, 12, 31)),
    days=st.integers(2, 7),
    agents=st.integers(1, 4),
)
@example(season="ftx", start=FTX_WEEK, days=7, agents=4)
def test_each_simulated_agent_is_its_replay_to_the_micro_dollar_st_2(
    tape: MarketTape, season: str, start: date, days: int, agents: int
) -> None:
    """ST-2: the null's coin agents end where the event path's coin flippers end, exactly."""
    state = _replay(tape, season, start, days, agents)
    cycles = null_cycles(state, tape)
    assert cycles is not None
    assert len(cycles) == days
    values = null_values(state, cycles, agents)
    replayed = [state.agents[name].equity[-1] for name in null_names(agents)]
    assert [int(v) for v in values] == replayed
    # T-MON-1, ST-2: the record alone (no tape, as live) gives the same null, to the micro-dollar
    recorded = null_cycles(state)
    assert recorded is not None
    assert [int(v) for v in null_values(state, recorded, agents)] == replayed
    for mine, theirs in zip(recorded, cycles, strict=True):
        assert (mine.index, mine.first) == (theirs.index, theirs.first)
        assert (mine.prices == theirs.prices).all()
        assert (mine.checks == theirs.checks).all()
    assert len(state.null_prices) == days
    if start == FTX_WEEK:  # the monitor's closes and the no-reopen rule were exercised
        assert state.monitor_closes
        reasons = {
            d["reason_code"]
            for a in state.agents.values()
            for e in a.entries
            for d in e["decisions"]  # type: ignore[attr-defined]
        }
        assert "no_reopen" in reasons


def test_board_line_is_the_null_expected_best_of_n_st_2(tape: MarketTape) -> None:
    """ST-2: every row's luckiest-of-N is the expected best of N from the null's cloud."""
    state = _replay(tape, "line", FTX_WEEK, 4, 3)
    null = season_null(state, tape, 3)
    assert null is not None
    assert len(null.cloud.values) == CLOUD_AGENTS
    assert null.line.agents == 3
    values = null_values(state, null_cycles(state, tape) or [], CLOUD_AGENTS)
    best, seasons = expected_best(values, 3, int(state.preset.start_cash))
    assert (null.expected_best, null.seasons) == (best, seasons)
    rows = board_rows(state, null)
    assert [r["luckiest_of_n"] for r in rows] == [str(best)] * 3
    report = build_report(state, null)
    luck = report["luckiest_of_n"]
    assert isinstance(luck, dict)
    assert luck["expected_best_return"] == str(best)
    assert luck["agents"] == 3
    assert luck["seasons"] == seasons
    assert luck["cycles"] == 4
    assert board_rows(state, None)[0]["luckiest_of_n"] is None  # no null, no line


def test_same_season_same_figure_st_2(tape: MarketTape) -> None:
    """ST-2: the line is a function of the season: the same season gives the same figure."""
    one = _replay(tape, "again", FTX_WEEK, 3, 2)
    two = _replay(tape, "again", FTX_WEEK, 3, 2)
    a, b = season_null(one, tape, 2), season_null(two, tape, 2)
    assert a is not None
    assert b is not None
    assert a.expected_best == b.expected_best
    assert (a.cloud.values == b.cloud.values).all()
    other = season_null(_replay(tape, "other", FTX_WEEK, 3, 2), tape, 2)
    assert other is not None
    assert not (other.cloud.values == a.cloud.values).all()  # another season, other coins


def test_a_tape_that_is_not_the_seasons_gives_no_line(tape: MarketTape) -> None:
    """The recorded prices must be the tape's: another week's season gives no null."""
    state = _replay(tape, "moved", FTX_WEEK, 2, 1)
    first = next(iter(state.cycles.values()))
    prices = first["prices"]
    assert isinstance(prices, dict)
    name = next(iter(prices))
    prices[name] = "1"  # as if recorded from other data
    assert null_cycles(state, tape) is None
    assert season_null(state, tape, 1) is None


def test_the_record_alone_gives_the_line_and_agrees_with_its_tape_st_2(tape: MarketTape) -> None:
    """ST-2, T-MON-1: recorded null prices give the tape's null; edited, the tape refuses them."""
    state = _replay(tape, "ftx", FTX_WEEK, 7, 4)
    assert state.monitor_closes  # checks between cycles matter in this week
    for payload in state.null_prices.values():
        assert check_payload(tev.NULL_PRICES_READ, payload, tev.FORMAT) == []
    with_tape, alone = season_null(state, tape, 4), season_null(state, None, 4)
    assert with_tape is not None
    assert alone is not None
    assert alone.expected_best == with_tape.expected_best
    assert (alone.cloud.values == with_tape.cloud.values).all()
    # a check the monitor read, moved: the record is not its tape's, so no null over the tape
    held = next(p for p in state.null_prices.values() if p["checks"])
    checks = held["checks"]
    assert isinstance(checks, dict)
    when = next(iter(checks))
    checks[when] = str(int(str(checks[when])) + 1)
    assert null_cycles(state, tape) is None
    assert season_null(state, tape, 4) is None


def test_a_record_without_null_prices_needs_its_tape_st_2(tape: MarketTape) -> None:
    """ST-2: a season recorded before its null prices were gets its line from its tape only."""
    state = _replay(tape, "older", FTX_WEEK, 3, 1)
    line = season_null(state, tape, 1)
    state.null_prices.clear()  # as written before the null's prices were recorded
    older = season_null(state, tape, 1)
    assert line is not None
    assert older is not None
    assert older.expected_best == line.expected_best
    assert null_cycles(state) is None
    assert season_null(state, None, 1) is None
    # a record whose checks miss one the monitor ran gives no null, tape or not
    state = _replay(tape, "older", FTX_WEEK, 3, 1)
    held = next(p for p in state.null_prices.values() if p["checks"])
    checks = held["checks"]
    assert isinstance(checks, dict)
    del checks[next(iter(checks))]
    assert null_cycles(state) is None


def test_a_held_symbol_without_a_price_at_a_cycle_gives_no_line_st_2(tape: MarketTape) -> None:
    """ST-2: a cycle whose recorded price of the held coin is missing (a feed that failed)
    cannot be simulated exactly: the board shows no line rather than a guess or a crash."""
    state = _replay(tape, "gap", FTX_WEEK, 3, 1)
    assert season_null(state, None, 1) is not None
    held = next(p for p in state.null_prices.values() if p["held"] is not None)
    held["price"] = None
    assert season_null(state, None, 1) is None


def test_a_record_whose_null_prices_are_not_numbers_gives_no_line_st_2(tape: MarketTape) -> None:
    """ST-2: null prices edited into text or past int64 give no line, never an error."""
    for garbage in ("abc", str(10**30), {"nested": "object"}):
        state = _replay(tape, "garbage", FTX_WEEK, 3, 1)
        held = next(p for p in state.null_prices.values() if p["checks"])
        checks = held["checks"]
        assert isinstance(checks, dict)
        checks[next(iter(checks))] = garbage
        assert season_null(state, None, 1) is None
        assert board_rows(state, None)  # the board itself still reads
