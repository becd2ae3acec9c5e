"""Frozen one-minute candles from files, served without look-ahead (SPEC C-11, D-RND-1).

The candles are a ``tradeleague.market.Dataset`` of one-minute bars (for
example ``../shared/data/crypto_1m``, loaded with ``load_dataset``). The source
holds the replay clock and refuses any question about a moment after it, so
replay sees exactly what live play would have seen.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from tradeleague.clock import Clock
from tradeleague.errors import DataError
from tradeleague.feeds.candles.base import LookAheadError
from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.market import BarSeries, Dataset
from tradeleague.money import Usd

__all__ = ["FrozenCandles"]


class FrozenCandles:
    """A candle source over a one-minute dataset and a (replay) clock.

    Parameters
    ----------
    dataset
        One-minute bars.
    clock
        The clock that says how far history has got.

    Raises
    ------
    DataError
        If the dataset's bars are not one minute.
    """

    def __init__(self, dataset: Dataset, clock: Clock) -> None:
        if dataset.bar_size != MINUTE:
            raise DataError(
                f"{dataset.label}: candles must be one-minute bars, not {dataset.bar_size}"
            )
        self._dataset = dataset
        self._clock = clock

    @property
    def dataset(self) -> Dataset:
        """Return the dataset served."""
        return self._dataset

    def _check(self, moment: datetime) -> None:
        if moment > self._clock.now():
            raise LookAheadError(
                f"candles up to {moment.isoformat()} asked for at {self._clock.now().isoformat()}"
            )

    async def history(self, symbol: str, end: datetime, count: int) -> tuple[Candle, ...]:
        """Return up to ``count`` candles closing in ``(last - count min, last]``, oldest first.

        ``last`` is ``end`` floored to the minute: off the minute grid (a drill
        round's open) the last candle is the one closed at the minute boundary
        before ``end``, and ``count`` candles still fit (as in ``CcxtCandles``).
        """
        self._check(end)
        series = self._dataset[symbol]
        last_close = int(end.timestamp()) // 60 * 60
        first_open = last_close - count * 60
        lo = int(np.searchsorted(series.times, first_open, side="left"))
        hi = int(np.searchsorted(series.times, last_close - 60, side="right"))
        return tuple(_candle(series, i) for i in range(lo, hi))

    async def candle(self, symbol: str, open_time: datetime) -> Candle | None:
        """Return the candle opened at ``open_time`` once it has closed, else ``None``."""
        if open_time + MINUTE > self._clock.now():
            return None
        series = self._dataset[symbol]
        stamp = int(open_time.timestamp())
        i = int(np.searchsorted(series.times, stamp, side="left"))
        if i >= len(series) or int(series.times[i]) != stamp:
            return None
        return _candle(series, i)


def _candle(series: BarSeries, index: int) -> Candle:
    return Candle(
        datetime.fromtimestamp(int(series.times[index]), UTC),
        Usd(int(series.open[index])),
        Usd(int(series.high[index])),
        Usd(int(series.low[index])),
        Usd(int(series.close[index])),
    )
