"""The invalidation monitor (SPEC T-MON-1).

Checks at :00, :15, :30 and :45 UTC on the latest observable price, every
held position at every check, market open or not. A long whose price is at or
below its level, or a short at or above it, is broken. A broken position that
may trade at the check is closed whole at that check's price with the fee. One
that may not (a stock while NYSE is closed: with daily bars a session's close
is first seen after the bell) is marked broken, with the check's time, the
level and the breaking price, and closed whole at the first check at which it
trades, at that check's price, whichever side of the level it is on: the first
tradable price after the break. The mark lives on the position's thesis, so it
is recorded and survives cycles and resumes; a partial close or a new level
keeps it, and a whole close ends it with the position. At a cycle's own
instant the monitor runs before the cycle's decisions. Nothing else happens
between cycles.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from tradeleague.formats.thesis.book import Book, Broken
from tradeleague.formats.thesis.execution import close_position
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.money import Qty, Usd
from tradeleague.sim import Fill

__all__ = ["MonitorBreak", "MonitorClose", "check_times", "is_broken", "run_check"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MonitorClose:
    """One position the monitor closed; ``broken`` when the break was seen earlier, untradable."""

    time: int
    symbol: str
    level: int
    fill: Fill
    realised: int
    broken: Broken | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MonitorBreak:
    """One position marked broken at a check where it could not trade; its close is pending."""

    symbol: str
    broken: Broken


def check_times(start: int, end: int, preset: ThesisPreset) -> Iterator[int]:
    """Yield the check instants in ``[start, end)`` (epoch seconds on the quarter hours)."""
    step = preset.monitor_minutes * 60
    first = -(-start // step) * step
    yield from range(first, end, step)


def is_broken(direction: int, level: int, price: int) -> bool:
    """Return whether ``price`` breaks ``level``: a long at or below it, a short at or above."""
    return price <= level if direction > 0 else price >= level


def run_check(
    book: Book,
    moment: int,
    prices: Mapping[str, Usd],
    tradeable_now: frozenset[str],
    cycle: int,
    preset: ThesisPreset,
) -> tuple[Book, tuple[MonitorClose, ...], tuple[MonitorBreak, ...]]:
    """Run one check at ``moment`` over every held position (T-MON-1).

    Parameters
    ----------
    book
        The model's book.
    moment
        The check's instant.
    prices
        The latest observable price per provider symbol at ``moment``.
    tradeable_now
        Held symbols that may trade at ``moment`` (a stock only while NYSE is open).
    cycle
        The latest cycle's number (a close counts for it, for the no-reopen rule).
    preset
        The fee.

    Returns
    -------
    tuple
        The book after, the positions closed, and the positions newly marked
        broken (seen broken while they could not trade).
    """
    closes: list[MonitorClose] = []
    breaks: list[MonitorBreak] = []
    for symbol in sorted(book.theses):
        thesis = book.theses[symbol]
        price = prices.get(symbol)
        if price is None:
            continue
        tradeable = symbol in tradeable_now
        mark = thesis.broken
        if mark is None:
            level = thesis.invalidation_price
            if not is_broken(thesis.direction, level, price):
                continue
            if not tradeable:
                mark = Broken(moment, level, price)
                marked = replace(thesis, broken=mark)
                book = Book(book.portfolio, {**book.theses, symbol: marked}, book.closed)
                breaks.append(MonitorBreak(symbol=symbol, broken=mark))
                continue
            pending = None
        elif not tradeable:
            continue  # already marked: the close waits for the first tradable check
        else:
            level, pending = mark.level, mark
        held = Qty(abs(book.portfolio.qty(symbol)))
        book, fill, realised = close_position(book, symbol, held, price, cycle, preset)
        closes.append(
            MonitorClose(
                time=moment,
                symbol=symbol,
                level=level,
                fill=fill,
                realised=realised,
                broken=pending,
            )
        )
    return book, tuple(closes), tuple(breaks)
