"""A ``Dataset``: several symbols' bars of one size on one calendar, with provenance.

A dataset always says where it came from (``source``), whether it is made up
(``synthetic``) and how to show it (``label``): anything that displays a
dataset shows its label, so synthetic data is never mistaken for history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from tradeleague.errors import DataError
from tradeleague.market.bars import Bar, BarSeries, format_bar_size
from tradeleague.market.calendars import CONTINUOUS, NYSE, TradingCalendar, get_calendar
from tradeleague.market.observe import (
    PriceObservation,
    bar_close_time,
    latest_observation,
    observation_times,
)
from tradeleague.money import Usd

__all__ = ["Dataset", "build_series", "infer_bar_size", "infer_calendar", "make_dataset"]

_CRYPTO_QUOTES = ("USDT", "USDC", "BUSD", "FDUSD")
_WEEKEND = (5, 6)


def infer_bar_size(time_columns: Iterable[NDArray[np.int64]]) -> timedelta:
    """Return the most common gap between consecutive bars, over all symbols.

    Overnight, weekend and holiday gaps are rarer than the bar size itself in
    any real series, so the mode is the bar size.

    Raises
    ------
    DataError
        If no symbol has two bars (the size cannot be seen; pass it explicitly).
    """
    diffs = [np.diff(t) for t in time_columns if len(t) > 1]
    if not diffs:
        raise DataError("cannot infer the bar size from single bars; give the bar size")
    values, counts = np.unique(np.concatenate(diffs), return_counts=True)
    return timedelta(seconds=int(values[int(np.argmax(counts))]))


def infer_calendar(symbols: Sequence[str], time_columns: Iterable[NDArray[np.int64]]) -> str:
    """Return ``"24/7"`` for crypto-looking data, else ``"XNYS"``.

    Data is crypto when any bar opens on a Saturday or Sunday (UTC), or every
    symbol ends in a stablecoin quote (``BTCUSDT``).
    """
    if symbols and all(s.upper().endswith(_CRYPTO_QUOTES) for s in symbols):
        return CONTINUOUS
    for times in time_columns:
        weekday = ((times // 86_400) + 3) % 7  # 1970-01-01 was a Thursday (3)
        if bool(np.isin(weekday, _WEEKEND).any()):
            return CONTINUOUS
    return NYSE


def build_series(
    symbol: str,
    columns: Sequence[NDArray[np.int64]],
    bar_size: timedelta,
    calendar: TradingCalendar,
) -> BarSeries:
    """Return a ``BarSeries`` with its observation times computed.

    Parameters
    ----------
    symbol
        The symbol's name.
    columns
        ``(times, open, high, low, close, volume)``: epoch seconds and micro-units.
    bar_size, calendar
        What the bars are.
    """
    try:
        opened, closed = observation_times(columns[0], int(bar_size.total_seconds()), calendar)
    except DataError as exc:
        raise DataError(f"{symbol}: {exc}") from None
    return BarSeries(symbol, columns, opened, closed)


def _aware(moment: datetime | None, what: str) -> int | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        raise ValueError(f"{what} {moment.isoformat()} is naive: every time must carry UTC")
    return int(moment.timestamp())


@dataclass(frozen=True, eq=False, slots=True)
class Dataset:
    """Bars of one size for several symbols on one calendar, with provenance.

    Attributes
    ----------
    series
        Each symbol's bars (read-only mapping, symbols sorted).
    bar_size
        The size of every bar.
    calendar
        The trading calendar (``XNYS`` or ``24/7``).
    source
        Where the bars came from (a path, or ``"synthetic"``).
    synthetic
        Whether the bars are generated rather than history.
    label
        How to show the dataset, e.g. ``us_equities_daily`` or
        ``synthetic (seed 7)``.
    """

    series: Mapping[str, BarSeries]
    bar_size: timedelta
    calendar: TradingCalendar
    source: str
    synthetic: bool
    label: str
    _sorted: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.series:
            raise DataError(f"{self.label}: the dataset has no symbols")
        ordered = tuple(sorted(self.series))
        object.__setattr__(self, "_sorted", ordered)
        frozen = MappingProxyType({s: self.series[s] for s in ordered})
        object.__setattr__(self, "series", frozen)

    @property
    def symbols(self) -> tuple[str, ...]:
        """Return the symbols, sorted."""
        return self._sorted

    @property
    def bar_size_text(self) -> str:
        """Return the bar size as short text (``1h``)."""
        return format_bar_size(self.bar_size)

    @property
    def rows(self) -> int:
        """Return the number of bars over all symbols."""
        return sum(len(s) for s in self.series.values())

    def __getitem__(self, symbol: str) -> BarSeries:
        try:
            return self.series[symbol]
        except KeyError:
            raise DataError(
                f"{self.label}: no symbol {symbol!r}; it has {', '.join(self.symbols)}"
            ) from None

    def bars(self, symbol: str) -> tuple[Bar, ...]:
        """Return ``symbol``'s bars as ``Bar`` objects."""
        return self[symbol].bars

    def bar_close_time(self, bar: Bar) -> datetime:
        """Return when ``bar`` closed (see ``tradeleague.market.observe``)."""
        return bar_close_time(bar, self.bar_size, self.calendar)

    def latest_observation(
        self, symbol: str, moment: datetime, *, include_opens: bool = True
    ) -> PriceObservation | None:
        """Return the latest price of ``symbol`` observable at ``moment`` and when it was."""
        return latest_observation(self[symbol], moment, include_opens=include_opens)

    def latest_price_at(self, symbol: str, moment: datetime) -> Usd | None:
        """Return the latest price of ``symbol`` observable at ``moment`` (no look-ahead)."""
        seen = latest_observation(self[symbol], moment)
        return None if seen is None else seen.price

    def select(
        self,
        symbols: Iterable[str] | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> Dataset:
        """Return the symbols asked for, with bars stamped in ``[start, end)``.

        Raises
        ------
        DataError
            For an unknown symbol, or when nothing is left.
        """
        names = self.symbols if symbols is None else tuple(dict.fromkeys(symbols))
        lo, hi = _aware(start, "start"), _aware(end, "end")
        kept: dict[str, BarSeries] = {}
        for name in names:
            s = self[name]
            a = 0 if lo is None else int(np.searchsorted(s.times, lo, side="left"))
            b = len(s) if hi is None else int(np.searchsorted(s.times, hi, side="left"))
            if b <= a:
                continue
            if a == 0 and b == len(s):
                kept[name] = s
            else:
                cols = [c[a:b] for c in s.columns()]
                kept[name] = BarSeries(name, cols, s.observed_open[a:b], s.observed_close[a:b])
        if not kept:
            raise DataError(f"{self.label}: no bars for those symbols in that date range")
        return Dataset(kept, self.bar_size, self.calendar, self.source, self.synthetic, self.label)


def make_dataset(
    columns: Mapping[str, Sequence[NDArray[np.int64]]],
    *,
    source: str,
    label: str,
    synthetic: bool,
    bar_size: timedelta | None = None,
    calendar: str | None = None,
) -> Dataset:
    """Return a dataset from raw columns, inferring bar size and calendar if not given.

    The bar size is the commonest gap between bars (``infer_bar_size``), except
    that on an exchange calendar a gap of whole days that is not whole weeks
    means daily bars.
    """
    symbols = sorted(columns)
    cal = get_calendar(calendar or infer_calendar(symbols, (columns[s][0] for s in symbols)))
    size = bar_size or infer_bar_size(columns[s][0] for s in symbols)
    if bar_size is None and not cal.continuous and size.days >= 1 and size.days % 7:
        # A few session-labelled bars around holidays can make 2 or 4 days the
        # commonest gap; on an exchange calendar the only such size is one session.
        size = timedelta(days=1)
    series = {s: build_series(s, columns[s], size, cal) for s in symbols}
    return Dataset(series, size, cal, source, synthetic, label)
