"""Resample bars to a larger size: 1m to 5m, 1h to 4h, 1m to 1h, 1d to 1w...

Each new bar takes the first open, the highest high, the lowest low, the last
close and the summed volume of the bars in its slot, and is stamped with the
slot's start (see ``tradeleague.market.grid``: epoch multiples on the 24/7
calendar, weeks from Monday; session-anchored slots on XNYS, so 1h equity bars
resample to 4h bars opening at the session open, and to daily bars labelled by
session date). A slot at the edge of the data that holds only some of its bars
still gives a bar; ``find_gaps`` on the source tells where bars were missing.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from tradeleague.errors import DataError
from tradeleague.market.bars import BarSeries, format_bar_size
from tradeleague.market.calendars import TradingCalendar
from tradeleague.market.dataset import Dataset, build_series
from tradeleague.market.grid import slot_starts

__all__ = ["resample", "resample_series"]


def resample_series(series: BarSeries, size: timedelta, calendar: TradingCalendar) -> BarSeries:
    """Return ``series`` resampled to bars of ``size`` on ``calendar``.

    Raises
    ------
    DataError
        If a bar falls in no session of the calendar.
    """
    size_s = int(size.total_seconds())
    try:
        labels, inside = slot_starts(series.times, size_s, calendar)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if not bool(inside.all()):
        bad = int(series.times[int(np.argmin(inside))])
        raise DataError(
            f"{series.symbol}: the bar at {np.datetime64(bad, 's')}Z is in no "
            f"{calendar.name} session, so it cannot be resampled"
        )
    starts = np.flatnonzero(np.diff(labels, prepend=labels[0] - 1) != 0)
    ends = np.append(starts[1:], len(labels)) - 1
    columns = (
        labels[starts],
        series.open[starts],
        np.maximum.reduceat(series.high, starts),
        np.minimum.reduceat(series.low, starts),
        series.close[ends],
        np.add.reduceat(series.volume, starts),
    )
    return build_series(series.symbol, columns, size, calendar)


def resample(dataset: Dataset, size: timedelta) -> Dataset:
    """Return ``dataset`` resampled to bars of ``size``.

    Parameters
    ----------
    dataset
        The source bars.
    size
        The new bar size: a whole multiple of the current one, and larger.

    Raises
    ------
    ValueError
        If ``size`` is not a larger whole multiple of the dataset's bar size.
    DataError
        If a bar falls outside the calendar's sessions.
    """
    old_s, new_s = int(dataset.bar_size.total_seconds()), int(size.total_seconds())
    if new_s <= old_s or new_s % old_s != 0:
        raise ValueError(
            f"cannot resample {dataset.bar_size_text} bars to {format_bar_size(size)}: "
            "the new size must be a larger whole multiple"
        )
    series = {s: resample_series(dataset[s], size, dataset.calendar) for s in dataset.symbols}
    label = f"{dataset.label}, resampled to {format_bar_size(size)}"
    return Dataset(series, size, dataset.calendar, dataset.source, dataset.synthetic, label)
