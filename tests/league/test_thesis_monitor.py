"""The monitor's stock closes over the frozen folders (T-MON-1): breaks seen after the bell.

The replay has daily stock bars only, so a session's close is first seen at the
NYSE close, when the market is shut. The monitor checks every held stock at
every check anyway: a long whose level that close broke (a short likewise) is
marked broken then, and closed at the first check with the market open, at
that check's price (the next session's open, here back on the right side of
the level: a monitor looking only while the market is open never closed it),
with the fee. A break seen while the market is open closes at once. The mark
is recorded, so it outlives the cycles of a weekend and a resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from test_thesis_replay import (  # type: ignore[import-not-found]
    EMPTY,
    SOURCES,
    START,
    Spy,
    _answer,
    _entr,
    _open,
    tape,
)

from tradeleague.agents.base import Agent
from tradeleague.events import thesis as tev
from tradeleague.events import utc_iso
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe, normalise
from tradeleague.league.thesis.cycle import Entrant
from tradeleague.league.thesis.data import load_tape
from tradeleague.league.thesis.replay import cycle_times, run_season
from tradeleague.league.thesis.report import build_report
from tradeleague.money import MICRO, micros_to_str
from tradeleague.store import open_store

__all__ = ["tape"]  # the module-scoped fixture, shared with the replay tests

PRESET = ThesisPreset()
END = date(2025, 3, 11)  # exclusive: 3..10 March, the weekend of 8 and 9 inside
STEP = PRESET.monitor_minutes * 60


@dataclass(frozen=True)
class SessionBreak:
    """A stock whose session close broke a level the opens around it did not."""

    symbol: str
    cycle: int
    level: int
    broke_at: int  # the first check after the bell: the close is seen, the market shut
    opens_at: int  # the first check with the market open again
    open_price: int


def _open_at(tape: MarketTape, moment: int) -> bool:
    return tape.calendar.is_open(datetime.fromtimestamp(moment, UTC))


def _session_break(tape: MarketTape, falls: bool, *, weekend: bool) -> SessionBreak:
    """Find the first stock and trading-day cycle whose close alone is past the open and next open.

    The level is the session's close itself (a long breaks at or below it, a
    short at or above), strictly inside the day's open and the next one.
    """
    times = cycle_times(START, END, PRESET)
    for cycle, moment in enumerate(times):
        if not _open_at(tape, moment):
            continue
        eligible = tape.picture(moment, PRESET).eligible
        for symbol in sorted(tape.universe.stocks):
            if symbol not in eligible:
                continue
            broke = next(
                t for t in range(moment + STEP, moment + 86_400, STEP) if not _open_at(tape, t)
            )
            opens = next(t for t in range(broke, broke + 5 * 86_400, STEP) if _open_at(tape, t))
            if weekend != (opens - broke > 86_400) or opens >= times[-1]:
                continue
            day, close, after = (int(tape.price_at(symbol, t) or 0) for t in (moment, broke, opens))
            sign = 1 if falls else -1
            if (day - close) * sign > 0 and (after - close) * sign > 0:
                return SessionBreak(symbol, cycle, close, broke, opens, after)
    raise AssertionError("no session-close break in the window")


def _run(
    url: str,
    tape: MarketTape,
    roster: Sequence[tuple[Entrant, Agent]],
    *,
    start: date = START,
    end: date = END,
    on_cycle: Callable[[int, int], None] | None = None,
) -> Any:
    with open_store(url) as store:
        return asyncio.run(
            run_season(
                store,
                tape,
                [e for e, _ in roster],
                {e.name: a for e, a in roster},
                season_id="m",
                start=start,
                end=end,
                sources=SOURCES,
                on_cycle=on_cycle,
            )
        )


def _events(url: str) -> list[Any]:
    with open_store(url) as store:
        return [s.event for s in store.events(tev.season_stream("m"))]


def _fee(qty: int, price: int, sign: int) -> int:
    value = qty * price // MICRO if sign > 0 else -(-qty * price // MICRO)
    return -(-value * PRESET.fee_ppm // MICRO)


def _opener(name: str, brk: SessionBreak, short: bool) -> Spy:
    return Spy(
        name, [*[EMPTY] * brk.cycle, _answer(_open(normalise(brk.symbol), brk.level, short=short))]
    )


def _check_closed_at_the_open(
    url: str, state: Any, name: str, brk: SessionBreak, sign: int
) -> None:
    """The break is marked at the bell, the close comes at the next open's price with the fee."""
    shown = normalise(brk.symbol)
    mine = [e for e in _events(url) if e.payload.get("agent") == name]
    (mark,) = [e.payload for e in mine if e.kind == tev.INVALIDATION_BROKEN]
    assert (mark["time"], mark["symbol"]) == (utc_iso(_dt(brk.broke_at)), shown)
    assert int(mark["level"]) == int(mark["price"]) == brk.level
    assert mark["book"]["theses"][brk.symbol]["broken"] == {
        "time": brk.broke_at,
        "level": str(brk.level),
        "price": str(brk.level),
    }
    (close,) = [c for c in state.monitor_closes if c["agent"] == name]
    assert close["time"] == utc_iso(_dt(brk.opens_at))
    assert int(close["price"]) == brk.open_price
    assert (brk.open_price - brk.level) * sign > 0  # back on the right side: still closed
    assert int(close["level"]) == brk.level
    assert (close["broken_time"], int(close["broken_price"])) == (mark["time"], brk.level)
    opened = next(e for e in state.agents[name].entries if e["decisions"])["decisions"][0]
    assert int(close["quantity"]) == int(opened["fill"]["qty"])
    assert int(close["fee"]) == _fee(int(close["quantity"]), brk.open_price, sign)
    assert state.agents[name].book.portfolio.positions == {}
    assert state.agents[name].book.theses == {}
    assert state.agents[name].book.closed[brk.symbol].direction == sign
    agents: list[dict[str, Any]] = build_report(state, None)["agents"]  # type: ignore[assignment]
    (row,) = next(a for a in agents if a["name"] == name)["monitor_closes"]
    assert row == {
        "time": close["time"],
        "symbol": shown,
        "level": micros_to_str(brk.level),
        "price": micros_to_str(brk.open_price),
        "quantity": micros_to_str(int(close["quantity"])),
        "fee": micros_to_str(int(close["fee"])),
        "broken_time": mark["time"],
        "broken_price": micros_to_str(brk.level),
    }


def _dt(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


@pytest.mark.parametrize("falls", [True, False], ids=["long", "short"])
def test_a_session_close_break_closes_at_the_next_open_t_mon_1(
    tmp_path: Path, tape: MarketTape, falls: bool
) -> None:
    """T-MON-1: a stock broken by its session's close alone is closed at the next session's open."""
    brk = _session_break(tape, falls, weekend=False)
    sign = 1 if falls else -1
    url = f"sqlite:///{tmp_path / 'm.db'}"
    state = _run(url, tape, [(_entr("m"), _opener("m", brk, short=not falls))])
    _check_closed_at_the_open(url, state, "m", brk, sign)


def test_a_friday_break_waits_the_weekend_and_survives_a_resume_t_mon_1(
    tmp_path: Path, tape: MarketTape
) -> None:
    """T-MON-1: a Friday close's break is marked, carried through the weekend's cycles, closed on
    Monday's open; a replay interrupted in the weekend ends on the uninterrupted chain head."""
    brk = _session_break(tape, True, weekend=True)
    times = cycle_times(START, END, PRESET)

    def roster() -> list[tuple[Entrant, Agent]]:
        return [(_entr("m"), _opener("m", brk, short=False))]

    whole = f"sqlite:///{tmp_path / 'whole.db'}"
    state = _run(whole, tape, roster())
    _check_closed_at_the_open(whole, state, "m", brk, 1)
    weekend = [i for i, t in enumerate(times) if brk.broke_at < t < brk.opens_at]
    assert len(weekend) >= 2  # Saturday's and Sunday's cycles lie between the mark and the close
    for entry in state.agents["m"].entries:
        held = entry["book"]["theses"].get(brk.symbol)
        if entry["round"] in {utc_iso(_dt(times[i])) for i in weekend}:
            assert held is not None
            assert held["broken"]["time"] == brk.broke_at  # the mark is in the weekend's books

    class Stop(Exception):
        pass

    def stop(index: int, total: int) -> None:
        if index == weekend[0]:
            raise Stop

    parts = f"sqlite:///{tmp_path / 'parts.db'}"
    with pytest.raises(Stop):
        _run(parts, tape, roster(), on_cycle=stop)
    _run(parts, tape, roster())
    with open_store(whole) as a, open_store(parts) as b:
        assert a.head() == b.head()


def test_a_break_seen_while_the_market_is_open_closes_at_once_t_mon_1(
    tmp_path: Path, shared_data: Path
) -> None:
    """T-MON-1: with hourly stock bars a session's first 4h close is seen mid-session; a long whose
    level it breaks is closed at that check, at that price, with the fee, never marked."""
    tape = load_tape(
        load_universe(),
        shared_data / "crypto_4h",
        shared_data / "us_equities_daily",
        shared_data / "us_equities_1h",
    )
    start, end = date(2025, 9, 2), date(2025, 9, 6)
    times = cycle_times(start, end, PRESET)
    found = None
    for cycle, moment in enumerate(times):
        eligible = tape.picture(moment, PRESET).eligible
        for symbol in ("AAPL", "AMZN", "GOOGL", "META", "MSFT", "NVDA", "TSLA"):
            if symbol not in eligible:
                continue
            price = int(tape.price_at(symbol, moment) or 0)
            later = next(
                t for t in range(moment + STEP, moment + 86_400, STEP)
                if tape.price_at(symbol, t) != price
            )  # fmt: skip
            seen = int(tape.price_at(symbol, later) or 0)
            if seen < price and _open_at(tape, later):
                found = (symbol, cycle, later, seen)
                break
        if found:
            break
    assert found is not None, "no mid-session fall in the window"
    symbol, cycle, later, seen = found
    agent = Spy("m", [*[EMPTY] * cycle, _answer(_open(normalise(symbol), seen))])
    url = f"sqlite:///{tmp_path / 'h.db'}"
    state = _run(url, tape, [(_entr("m"), agent)], start=start, end=end)
    assert not [e for e in _events(url) if e.kind == tev.INVALIDATION_BROKEN]
    (close,) = state.monitor_closes
    assert close["time"] == utc_iso(_dt(later))
    assert (close["symbol"], int(close["price"]), int(close["level"])) == (
        normalise(symbol),
        seen,
        seen,
    )
    assert "broken_time" not in close
    assert int(close["fee"]) == _fee(int(close["quantity"]), seen, 1)
    assert state.agents["m"].book.portfolio.positions == {}
