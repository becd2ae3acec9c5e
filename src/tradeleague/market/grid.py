"""The grid of bar slots a calendar and a bar size define.

Resampling groups bars by the slot they fall in; gap detection compares the
slots a series covers with the ones its calendar expects.

* On the 24/7 calendar, slots are multiples of the bar size from the Unix epoch
  (1970-01-01 00:00Z), except that whole weeks start on Mondays (from
  1970-01-05), as weekly bars do.
* On a session calendar (XNYS), an intraday slot starts at the session open
  plus a multiple of the size and never runs past the close (the last one may be
  shorter); a bar stamped exactly at the close, a closing print as Yahoo serves
  on early-close days, belongs to the last slot. A daily slot is a session,
  labelled 00:00Z on its date; a weekly slot is labelled 00:00Z on the Monday.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from tradeleague.market.calendars import DAY_S, TradingCalendar

__all__ = ["WEEK_S", "expected_slots", "slot_starts"]

WEEK_S: Final = 7 * DAY_S
"""Seconds in a week."""
_MONDAY: Final = 4 * DAY_S  # 1970-01-05, the first Monday after the epoch


def slot_starts(
    times: NDArray[np.int64], size_s: int, calendar: TradingCalendar
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Return the slot each time falls in, and whether it falls in any slot.

    Parameters
    ----------
    times
        Bar timestamps, seconds since the Unix epoch (daily equity bars:
        00:00Z on the session date).
    size_s
        The slot size in seconds.
    calendar
        The calendar the slots follow.

    Raises
    ------
    ValueError
        On a session calendar, for a size of a day or more that is neither one
        day nor a whole number of weeks.
    """
    if calendar.continuous:
        anchor = _MONDAY if size_s % WEEK_S == 0 else 0
        return anchor + (times - anchor) // size_s * size_s, np.ones(len(times), dtype=np.bool_)
    idx = calendar.containing(times)
    inside = idx >= 0
    safe = np.maximum(idx, 0)
    if size_s < DAY_S:
        opens, closes = calendar.opens[safe], calendar.closes[safe]
        last = -((opens - closes) // size_s) - 1
        k = np.minimum((times - opens) // size_s, last)
        return opens + k * size_s, inside
    if size_s != DAY_S and size_s % WEEK_S != 0:
        raise ValueError(
            f"on the {calendar.name} calendar a bar of a day or more is 1d or whole weeks"
        )
    labels = times // DAY_S
    week_start = (times - _MONDAY) % size_s == 0 if size_s > DAY_S else False
    is_label = (times % DAY_S == 0) & ((calendar.locate(labels) >= 0) | week_start)
    days = np.where(inside, calendar.days[safe], labels)
    day_s = days * DAY_S
    if size_s == DAY_S:
        return day_s, inside | is_label
    return _MONDAY + (day_s - _MONDAY) // size_s * size_s, inside | is_label


def expected_slots(
    first: int, last: int, size_s: int, calendar: TradingCalendar
) -> NDArray[np.int64]:
    """Return every slot from the one holding ``first`` to the one holding ``last``.

    On the 24/7 calendar the grid is anchored at ``first`` itself (so a series
    off the epoch grid is still checked against its own rhythm).
    """
    if calendar.continuous:
        return np.arange(first, last + 1, size_s, dtype=np.int64)
    ends = np.array([first, last], dtype=np.int64)
    (lo, hi), ok = slot_starts(ends, size_s, calendar)
    if not bool(ok.all()):
        raise ValueError("the first and last bars must fall inside sessions")
    if size_s >= DAY_S:
        a = int(np.searchsorted(calendar.days, lo // DAY_S - 7 * (size_s // WEEK_S)))
        b = int(np.searchsorted(calendar.days, hi // DAY_S + size_s // DAY_S))
        labels, _ = slot_starts(calendar.days[a:b] * DAY_S, size_s, calendar)
        labels = np.unique(labels)
    else:
        a = int(np.searchsorted(calendar.closes, lo, side="left"))
        b = int(np.searchsorted(calendar.opens, hi, side="right"))
        opens, closes = calendar.opens[a:b], calendar.closes[a:b]
        counts = -((opens - closes) // size_s)
        starts = np.repeat(opens, counts)
        offsets = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
            np.cumsum(counts) - counts, counts
        )
        labels = starts + offsets * size_s
    kept: NDArray[np.int64] = labels[(labels >= lo) & (labels <= hi)]
    return kept
