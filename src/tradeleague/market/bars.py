"""OHLCV bars, bar sizes, and one symbol's bars held as columns.

A ``Bar`` is stamped with its **open** time (aware UTC, SPEC C-11); a daily
US-equity bar is stamped 00:00Z on its session date, a label and not a close
time (see ``tradeleague.market.observe`` for when its prices become known).
Prices are exact micro-dollars (``Usd``), volume is in millionths of a share or
of the base asset (``Qty``, informational, never used in accounting).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np
from numpy.typing import NDArray

from tradeleague.errors import DataError
from tradeleague.money import MICRO, Qty, Usd

__all__ = ["Bar", "BarSeries", "format_bar_size", "ohlc_problem", "parse_bar_size"]

_UNITS: Final = {"w": 604_800, "d": 86_400, "h": 3_600, "m": 60, "s": 1}
_SIZE_RE: Final = re.compile(r"\s*([1-9][0-9]*)\s*([wdhms])\s*")


def format_bar_size(size: timedelta) -> str:
    """Return a bar size as short text: ``1m``, ``5m``, ``1h``, ``4h``, ``1d``, ``1w``."""
    seconds = int(size.total_seconds())
    if seconds <= 0 or seconds != size.total_seconds():
        raise ValueError(f"a bar size is a positive whole number of seconds, not {size}")
    for unit, length in _UNITS.items():
        if seconds % length == 0:
            return f"{seconds // length}{unit}"
    raise AssertionError("unreachable: every size is a whole number of seconds")


def parse_bar_size(text: str) -> timedelta:
    """Return the bar size written as ``<n><unit>`` with unit in ``w d h m s``.

    Raises
    ------
    ValueError
        For any other text.
    """
    match = _SIZE_RE.fullmatch(text.lower())
    if match is None:
        raise ValueError(f"bar size {text!r}: write a number and a unit, e.g. 5m, 1h, 4h, 1d, 1w")
    return timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


@dataclass(frozen=True, slots=True)
class Bar:
    """One OHLCV bar, validated on construction.

    Attributes
    ----------
    timestamp
        The bar's open time, aware, in UTC (a session-date label for daily
        US equities).
    open, high, low, close
        Prices in micro-dollars (micro-USDT for crypto), all > 0, with
        ``high >= max(open, close)`` and ``low <= min(open, close)``.
    volume
        Millionths of a share or of the base asset, >= 0 (0 may mean unknown).
    """

    timestamp: datetime
    open: Usd
    high: Usd
    low: Usd
    close: Usd
    volume: Qty

    def __post_init__(self) -> None:
        offset = self.timestamp.utcoffset()
        if offset is None or offset:
            raise DataError(f"bar time {self.timestamp.isoformat()} is not an aware UTC time")
        for name in ("open", "high", "low", "close", "volume"):
            value = getattr(self, name)
            if type(value) is not int:
                raise DataError(f"bar {name} must be integer micro-units, not {value!r}")
        problem = ohlc_problem(self.open, self.high, self.low, self.close, self.volume)
        if problem:
            raise DataError(f"bar at {self.timestamp.isoformat()}: {problem}")


def ohlc_problem(open_: int, high: int, low: int, close: int, volume: int) -> str:
    """Return what is wrong with one bar's values, or ``""`` if nothing is."""
    if min(open_, high, low, close) <= 0:
        return "prices must be > 0 (after rounding to the micro-dollar)"
    if high < max(open_, close):
        return f"high {high / MICRO:g} is below max(open, close) {max(open_, close) / MICRO:g}"
    if low > min(open_, close):
        return f"low {low / MICRO:g} is above min(open, close) {min(open_, close) / MICRO:g}"
    if volume < 0:
        return "volume must be >= 0"
    return ""


def _readonly(values: NDArray[np.int64]) -> NDArray[np.int64]:
    arr = np.ascontiguousarray(values, dtype=np.int64)
    if arr is values:
        arr = arr.copy()
    arr.flags.writeable = False
    return arr


class BarSeries:
    """One symbol's bars as read-only columns, with ``Bar`` objects on demand.

    The columns suit indicators and fast look-ups: ``times`` (open stamps,
    seconds since the Unix epoch), ``open``/``high``/``low``/``close`` (int64
    micro-dollars), ``volume`` (int64 millionths), ``closes`` (float64 dollars,
    for statistics only), and ``observed_open``/``observed_close`` (the instant
    each bar's open and close become known; see ``tradeleague.market.observe``).
    """

    __slots__ = (
        "_bars",
        "close",
        "closes",
        "high",
        "low",
        "observed_close",
        "observed_open",
        "open",
        "symbol",
        "times",
        "volume",
    )

    def __init__(
        self,
        symbol: str,
        columns: Sequence[NDArray[np.int64]],
        observed_open: NDArray[np.int64],
        observed_close: NDArray[np.int64],
    ) -> None:
        times, open_, high, low, close, volume = (_readonly(c) for c in columns)
        n = len(times)
        if n == 0:
            raise DataError(f"{symbol}: a series needs at least one bar")
        if any(len(c) != n for c in (open_, high, low, close, volume)):
            raise ValueError("columns must have equal lengths")
        if n > 1 and not bool(np.all(np.diff(times) > 0)):
            raise DataError(f"{symbol}: bar times must be strictly increasing")
        self.symbol = symbol
        self.times = times
        self.open = open_
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
        closes = close / MICRO
        closes.flags.writeable = False
        self.closes: NDArray[np.float64] = closes
        self.observed_open = _readonly(observed_open)
        self.observed_close = _readonly(observed_close)
        self._bars: tuple[Bar, ...] | None = None

    def __len__(self) -> int:
        return len(self.times)

    def __repr__(self) -> str:
        return f"BarSeries({self.symbol!r}, {len(self)} bars)"

    @property
    def first(self) -> datetime:
        """Return the first bar's timestamp."""
        return datetime.fromtimestamp(int(self.times[0]), UTC)

    @property
    def last(self) -> datetime:
        """Return the last bar's timestamp."""
        return datetime.fromtimestamp(int(self.times[-1]), UTC)

    @property
    def bars(self) -> tuple[Bar, ...]:
        """Return the bars as ``Bar`` objects (built once, on first use)."""
        if self._bars is None:
            self._bars = tuple(self.bar(i) for i in range(len(self)))
        return self._bars

    def bar(self, index: int) -> Bar:
        """Return bar number ``index`` (negative counts from the end)."""
        return Bar(
            datetime.fromtimestamp(int(self.times[index]), UTC),
            Usd(int(self.open[index])),
            Usd(int(self.high[index])),
            Usd(int(self.low[index])),
            Usd(int(self.close[index])),
            Qty(int(self.volume[index])),
        )

    def columns(self) -> tuple[NDArray[np.int64], ...]:
        """Return ``(times, open, high, low, close, volume)``."""
        return (self.times, self.open, self.high, self.low, self.close, self.volume)
