"""Candles with the instants they become known, and the daily and weekly bars built from them.

Observability is the rule every format uses (``market/observe.py``): a candle's
open is known from its ``start``, the rest of it from its ``end``; a candle
that ends at t is closed at t. Crypto daily and weekly candles are built from
the 4h candles given (UTC days, ISO weeks); a day or week is closed when its
last 4h candle has ended. A stock's week is closed when the week's last
session has closed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from tradeleague.market.bars import BarSeries
from tradeleague.market.calendars import DAY_S
from tradeleague.money import micros_to_str

__all__ = [
    "Candle",
    "candles_of",
    "closed_before",
    "daily_from_intraday",
    "latest_price",
    "weekly_from_daily",
]


@dataclass(frozen=True, slots=True)
class Candle:
    """One OHLCV candle: integer micro-units, with its open and close instants (epoch seconds)."""

    start: int
    end: int
    open: int
    high: int
    low: int
    close: int
    volume: int

    def to_row(self) -> list[object]:
        """Return ``[iso start, open, high, low, close, volume]`` with decimal strings."""
        stamp = datetime.fromtimestamp(self.start, UTC).isoformat().replace("+00:00", "Z")
        return [
            stamp,
            micros_to_str(self.open),
            micros_to_str(self.high),
            micros_to_str(self.low),
            micros_to_str(self.close),
            micros_to_str(self.volume),
        ]


def candles_of(series: BarSeries) -> tuple[Candle, ...]:
    """Return a bar series as candles, with the instants its open and close became known."""
    return tuple(
        Candle(
            int(series.observed_open[i]),
            int(series.observed_close[i]),
            int(series.open[i]),
            int(series.high[i]),
            int(series.low[i]),
            int(series.close[i]),
            int(series.volume[i]),
        )
        for i in range(len(series))
    )


def closed_before(candles: Sequence[Candle], moment: int) -> Sequence[Candle]:
    """Return the candles closed by ``moment`` (``end <= moment``); candles are in time order."""
    lo, hi = 0, len(candles)
    while lo < hi:
        mid = (lo + hi) // 2
        if candles[mid].end <= moment:
            lo = mid + 1
        else:
            hi = mid
    return candles[:lo]


def latest_price(candles: Sequence[Candle], moment: int) -> int | None:
    """Return the latest price observable at ``moment``, or ``None`` before the first open.

    The close of the latest candle closed by ``moment``, unless a later candle has
    opened by then, in which case its open (a tie goes to the open).
    """
    closed = closed_before(candles, moment)
    index = len(closed)
    if index < len(candles) and candles[index].start <= moment:
        return candles[index].open
    return closed[-1].close if closed else None


def _merge(group: Sequence[Candle], start: int, end: int) -> Candle:
    return Candle(
        start,
        end,
        group[0].open,
        max(c.high for c in group),
        min(c.low for c in group),
        group[-1].close,
        sum(c.volume for c in group),
    )


def _grouped(candles: Sequence[Candle], key: Callable[[Candle], int]) -> list[list[Candle]]:
    groups: list[list[Candle]] = []
    last: int | None = None
    for candle in candles:
        k = key(candle)
        if k != last:
            groups.append([])
            last = k
        groups[-1].append(candle)
    return groups


def daily_from_intraday(candles: Sequence[Candle]) -> tuple[Candle, ...]:
    """Return UTC-day candles from intraday ones; a day ends at the next 00:00 UTC."""
    return tuple(
        _merge(g, g[0].start // DAY_S * DAY_S, g[0].start // DAY_S * DAY_S + DAY_S)
        for g in _grouped(candles, lambda c: c.start // DAY_S)
    )


def _monday(seconds: int) -> date:
    day = datetime.fromtimestamp(seconds, UTC).date()
    return day - timedelta(days=day.weekday())


def weekly_from_daily(
    candles: Sequence[Candle], week_end: Callable[[date], int] | None = None
) -> tuple[Candle, ...]:
    """Return ISO-week candles from daily ones.

    Parameters
    ----------
    candles
        Daily candles in time order.
    week_end
        The instant a week (given by its Monday) closes; by default the next
        Monday 00:00 UTC (crypto). For stocks: the close of the week's last session.
    """
    out: list[Candle] = []
    for group in _grouped(candles, lambda c: _monday(c.start).toordinal()):
        monday = _monday(group[0].start)
        start = int(datetime(monday.year, monday.month, monday.day, tzinfo=UTC).timestamp())
        end = week_end(monday) if week_end is not None else start + 7 * DAY_S
        out.append(_merge(group, group[0].start if week_end is not None else start, end))
    return tuple(out)
