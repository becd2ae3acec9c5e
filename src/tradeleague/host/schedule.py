"""The slots each format's schedule names in a span (pure; issue 12).

- weights: every NYSE trading day, at the preset's round hours (15..19 UTC)
  (W-RND-1);
- direction: every round open on the five-minute grid, around the clock
  (D-RND-1);
- thesis: every day of the season at 16:00 UTC, and the season's close at
  the monitor's last check before its end (T-SEA-1, T-MON-1).

``start`` is inclusive and ``end`` exclusive for openings.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import round_opens
from tradeleague.formats.thesis.calendar import close_instant, cycle_times
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.weights import WeightsPreset, round_hours_on

__all__ = ["direction_slots", "thesis_slots", "weights_slots"]


def weights_slots(
    start: datetime,
    end: datetime,
    is_trading_day: Callable[[date], bool],
    preset: WeightsPreset,
) -> list[datetime]:
    """Return the weights round hours in ``[start, end)`` on trading days, in order."""
    out: list[datetime] = []
    day = start.astimezone(UTC).date()
    while datetime.combine(day, datetime.min.time(), tzinfo=UTC) < end:
        if is_trading_day(day):
            out.extend(h for h in round_hours_on(day, preset) if start <= h < end)
        day += timedelta(days=1)
    return out


def direction_slots(start: datetime, end: datetime, preset: DirectionPreset) -> list[datetime]:
    """Return the direction round opens in ``[start, end)``."""
    return round_opens(start, end, preset)


def thesis_slots(
    start: datetime, end: datetime, first: date, last: date, preset: ThesisPreset
) -> list[datetime]:
    """Return the thesis season's slots in ``[start, end)``: its daily cycles, then its close.

    The season covers the days ``[first, last)``; its close is the monitor's
    last check before ``last`` (T-SEA-1, T-MON-1).
    """
    instants = [*cycle_times(first, last, preset), close_instant(last, preset)]
    moments = [datetime.fromtimestamp(s, UTC) for s in instants]
    return [m for m in moments if start <= m < end]
