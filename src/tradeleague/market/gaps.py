"""Missing bars: the slots a calendar expects that a series does not have.

For each symbol the expected slots run from its first bar to its last (a symbol
that listed late is not short of bars before it listed); see
``tradeleague.market.grid`` for the slots. A bar that falls in no slot, or not
at a slot's start (other than a closing print stamped at the session close), is
reported as *unexpected* rather than silently matched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from tradeleague.market.bars import BarSeries
from tradeleague.market.calendars import DAY_S, TradingCalendar
from tradeleague.market.dataset import Dataset
from tradeleague.market.grid import expected_slots, slot_starts

__all__ = ["GapReport", "find_gaps", "series_gaps"]


@dataclass(frozen=True, slots=True)
class GapReport:
    """One symbol's missing and unexpected bars.

    Attributes
    ----------
    symbol
        The symbol.
    expected
        How many slots its calendar expects between its first and last bar.
    missing
        The start of each expected slot without a bar, oldest first.
    unexpected
        The timestamp of each bar off the calendar's grid.
    """

    symbol: str
    expected: int
    missing: tuple[datetime, ...]
    unexpected: tuple[datetime, ...]

    @property
    def ok(self) -> bool:
        """Return whether nothing is missing or unexpected."""
        return not self.missing and not self.unexpected


def _moments(seconds: np.ndarray) -> tuple[datetime, ...]:
    return tuple(datetime.fromtimestamp(int(s), UTC) for s in seconds)


def series_gaps(series: BarSeries, size_s: int, calendar: TradingCalendar) -> GapReport:
    """Return the gap report of one series of bars of ``size_s`` seconds."""
    times = series.times
    slots, inside = slot_starts(times, size_s, calendar)
    on_grid = inside & (slots == times)
    if not calendar.continuous and size_s < DAY_S:
        at_close = calendar.closes[np.maximum(calendar.containing(times), 0)] == times
        on_grid |= inside & at_close
    if calendar.continuous:
        on_grid = (times - times[0]) % size_s == 0
        slots = times
    kept = np.flatnonzero(inside)
    if len(kept) == 0:
        return GapReport(series.symbol, 0, (), _moments(times))
    expected = expected_slots(int(slots[kept[0]]), int(slots[kept[-1]]), size_s, calendar)
    missing = np.setdiff1d(expected, slots[kept], assume_unique=False)
    return GapReport(series.symbol, len(expected), _moments(missing), _moments(times[~on_grid]))


def find_gaps(dataset: Dataset) -> dict[str, GapReport]:
    """Return each symbol's gap report, relative to its calendar and bar size.

    Examples: ``us_equities_1h`` misses bars on 2026-01-30 and 2026-02-02;
    ``crypto_1m`` misses none.
    """
    size_s = int(dataset.bar_size.total_seconds())
    return {s: series_gaps(dataset[s], size_s, dataset.calendar) for s in dataset.symbols}
