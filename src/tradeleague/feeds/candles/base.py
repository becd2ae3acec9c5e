"""The one-minute candle source interface, live and frozen alike (SPEC D-RND-1, C-11).

A source serves only candles that have *closed* by the time of the question
(no look-ahead): the frozen source checks its replay clock, the live source
drops the exchange's still-open candle.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

from tradeleague.errors import DataError
from tradeleague.formats.direction.candle import Candle

__all__ = ["CandleSource", "LookAheadError"]


class LookAheadError(DataError):
    """A source was asked for candles that had not closed yet at the clock's time."""


@runtime_checkable
class CandleSource(Protocol):
    """Where one-minute candles come from."""

    async def history(self, symbol: str, end: datetime, count: int) -> tuple[Candle, ...]:
        """Return up to ``count`` candles closing at or before ``end``, oldest first.

        Candles missing at the source (a gap) are missing here too; nothing is
        filled in.
        """
        ...

    async def candle(self, symbol: str, open_time: datetime) -> Candle | None:
        """Return the candle that opened at ``open_time``, or ``None`` if it is not known."""
        ...
