"""When rounds happen: one round per trading day at a fixed UTC time.

Pure: a function of the dataset's bars and calendar, no clock.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from tradeleague.market import Dataset

__all__ = ["daily_round_times"]


def daily_round_times(
    dataset: Dataset, hour_utc: int = 15, days: int | None = None
) -> list[datetime]:
    """Return one round time per trading day of ``dataset``, at ``hour_utc``:00 UTC.

    A day counts when at least one symbol has a bar stamped on it and the
    calendar calls it a trading day; ``days`` keeps only the last that many.
    """
    stamped: set[date] = set()
    for symbol in dataset.symbols:
        for seconds in dataset[symbol].times.tolist():
            stamped.add(datetime.fromtimestamp(int(seconds), UTC).date())
    trading = sorted(d for d in stamped if dataset.calendar.is_trading_day(d))
    if days is not None:
        trading = trading[-days:] if days > 0 else []
    return [datetime.combine(d, time(hour_utc), tzinfo=UTC) for d in trading]
