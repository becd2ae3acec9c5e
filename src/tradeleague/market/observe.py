"""When a bar's prices become known: the no-look-ahead rule (SPEC C-2, W-RND-2).

Every bar gives two observations, each at a definite instant:

* its **open** is known at the bar's open time. That is its timestamp for
  intraday and crypto bars. A daily (or weekly) US-equity bar is stamped 00:00Z
  on its session date, which is a label, not a time: its open is known at the
  NYSE open of the first session it covers (13:30Z in summer, 14:30Z in winter).
* its **close** is known once the bar has closed: open + bar size for crypto and
  intraday bars, except that an intraday equity bar never runs past its
  session's close (so the last 1h bar of a regular session, opening at 19:30Z
  or 20:30Z, closes 30 minutes later, and early closes end a bar sooner). For a
  daily or weekly US-equity bar it is the NYSE close of the last session the
  bar covers (20:00Z or 21:00Z, 17:00Z or 18:00Z on a half day).

**The latest price observable at instant t** is the most recent observation
made at or before t: the close of the latest bar that has closed by t, unless a
later bar has opened by t, in which case it is that bar's open. Before the
first bar opens nothing is observable (``None``). In particular a bar's close,
high and low are never used before the bar has closed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from numpy.typing import NDArray

from tradeleague.errors import DataError
from tradeleague.market.bars import Bar, BarSeries
from tradeleague.market.calendars import DAY_S, TradingCalendar
from tradeleague.money import Usd

__all__ = [
    "Observed",
    "PriceObservation",
    "bar_close_time",
    "bar_open_time",
    "latest_observation",
    "observation_times",
]


class Observed(enum.Enum):
    """Which price of a bar an observation is."""

    OPEN = "open"
    """The bar's open, known at its open time."""
    CLOSE = "close"
    """The bar's close, known once the bar has closed."""


@dataclass(frozen=True, slots=True)
class PriceObservation:
    """A price and the instant it became observable."""

    price: Usd
    """The price in micro-dollars."""
    at: datetime
    """When the price became known (UTC)."""
    kind: Observed
    """Whether it is a bar's open or its close."""
    bar_time: datetime
    """The timestamp of the bar it comes from."""


def observation_times(
    times: NDArray[np.int64], bar_size_s: int, calendar: TradingCalendar
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Return when each bar's open and close become known (epoch seconds).

    Parameters
    ----------
    times
        Bar timestamps in seconds since the Unix epoch, increasing.
    bar_size_s
        The bar size in seconds.
    calendar
        The calendar the bars trade on.

    Raises
    ------
    DataError
        If a daily (or longer) bar on a session calendar covers no session, or
        its stamp is not 00:00Z.
    """
    if calendar.continuous:
        return times.copy(), times + bar_size_s
    if bar_size_s < DAY_S:
        idx = calendar.containing(times)
        closes = calendar.closes[np.maximum(idx, 0)]
        end = np.where(idx >= 0, np.minimum(times + bar_size_s, closes), times + bar_size_s)
        return times.copy(), end
    off_label = times % DAY_S != 0
    if bool(off_label.any()):
        bad = int(times[int(np.argmax(off_label))])
        raise DataError(
            f"a {calendar.name} bar of a day or longer is stamped 00:00Z on its session date; "
            f"found {_iso(bad)}"
        )
    days = times // DAY_S
    lo = np.searchsorted(calendar.days, days, side="left")
    hi = np.searchsorted(calendar.days, days + bar_size_s // DAY_S, side="left") - 1
    empty = hi < lo
    if bool(empty.any()):
        bad = int(times[int(np.argmax(empty))])
        raise DataError(f"the bar labelled {_iso(bad)[:10]} covers no {calendar.name} session")
    return calendar.opens[lo], calendar.closes[hi]


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def _seconds(moment: datetime) -> int:
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: every time must carry UTC")
    return int(moment.timestamp())


def bar_open_time(bar: Bar, bar_size: timedelta, calendar: TradingCalendar) -> datetime:
    """Return when ``bar``'s open becomes known (the session open for daily equities)."""
    opened, _ = observation_times(
        np.array([_seconds(bar.timestamp)], dtype=np.int64),
        int(bar_size.total_seconds()),
        calendar,
    )
    return datetime.fromtimestamp(int(opened[0]), UTC)


def bar_close_time(bar: Bar, bar_size: timedelta, calendar: TradingCalendar) -> datetime:
    """Return when ``bar`` has closed, so that its close, high and low are known."""
    _, closed = observation_times(
        np.array([_seconds(bar.timestamp)], dtype=np.int64),
        int(bar_size.total_seconds()),
        calendar,
    )
    return datetime.fromtimestamp(int(closed[0]), UTC)


def latest_observation(
    series: BarSeries, moment: datetime, *, include_opens: bool = True
) -> PriceObservation | None:
    """Return the latest price of ``series`` observable at ``moment``, or ``None``.

    Parameters
    ----------
    series
        One symbol's bars with their observation times.
    moment
        An aware time.
    include_opens
        When false, only closes count (the latest *closed* bar's close).
    """
    t = _seconds(moment)
    i_close = int(np.searchsorted(series.observed_close, t, side="right")) - 1
    if include_opens:
        i_open = int(np.searchsorted(series.observed_open, t, side="right")) - 1
        if i_open > i_close and (
            i_close < 0 or series.observed_open[i_open] >= series.observed_close[i_close]
        ):
            return _observation(series, i_open, Observed.OPEN)
    if i_close < 0:
        return None
    return _observation(series, i_close, Observed.CLOSE)


def _observation(series: BarSeries, index: int, kind: Observed) -> PriceObservation:
    if kind is Observed.OPEN:
        price, at = series.open[index], series.observed_open[index]
    else:
        price, at = series.close[index], series.observed_close[index]
    return PriceObservation(
        price=Usd(int(price)),
        at=datetime.fromtimestamp(int(at), UTC),
        kind=kind,
        bar_time=datetime.fromtimestamp(int(series.times[index]), UTC),
    )
