"""The invalidation monitor (SPEC T-MON-1).

Checks at :00, :15, :30 and :45 UTC on the latest observable price; a long
whose price is at or below its level, or a short at or above it, is closed
whole at that check's price with the fee. A stock is closed only while NYSE
is open, so at the first observable price after the break. At a cycle's own
instant the monitor runs before the cycle's decisions. Nothing else happens
between cycles.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from tradeleague.formats.thesis.book import Book
from tradeleague.formats.thesis.execution import close_position
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.money import Qty, Usd
from tradeleague.sim import Fill

__all__ = ["MonitorClose", "check_times", "run_check"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MonitorClose:
    """One position the monitor closed."""

    time: int
    symbol: str
    level: int
    fill: Fill
    realised: int


def check_times(start: int, end: int, preset: ThesisPreset) -> Iterator[int]:
    """Yield the check instants in ``[start, end)`` (epoch seconds on the quarter hours)."""
    step = preset.monitor_minutes * 60
    first = -(-start // step) * step
    yield from range(first, end, step)


def run_check(
    book: Book,
    moment: int,
    prices: Mapping[str, Usd],
    tradeable_now: frozenset[str],
    cycle: int,
    preset: ThesisPreset,
) -> tuple[Book, tuple[MonitorClose, ...]]:
    """Close every position whose invalidation level has broken at ``moment`` (T-MON-1).

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
    """
    closes: list[MonitorClose] = []
    for symbol in sorted(book.theses):
        thesis = book.theses[symbol]
        price = prices.get(symbol)
        if price is None or symbol not in tradeable_now:
            continue
        level = thesis.invalidation_price
        broken = price <= level if thesis.direction > 0 else price >= level
        if not broken:
            continue
        held = Qty(abs(book.portfolio.qty(symbol)))
        book, fill, realised = close_position(book, symbol, held, price, cycle, preset)
        closes.append(
            MonitorClose(time=moment, symbol=symbol, level=level, fill=fill, realised=realised)
        )
    return book, tuple(closes)
