"""A one-minute candle: the unit of the direction arena's market data (D-RND-1).

Candles are stamped with their open time; a one-minute candle closes one
minute later, and its close is the price the arena reads at that instant.
Prices are exact micro-dollars (micro-USDT for a USDT pair).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from tradeleague.events import utc_iso
from tradeleague.money import Usd, micros_to_str, parse_micros

__all__ = ["MINUTE", "Candle"]

MINUTE: Final = timedelta(minutes=1)
"""The candle size."""


@dataclass(frozen=True, slots=True)
class Candle:
    """One one-minute OHLC candle.

    Attributes
    ----------
    open_time
        When the candle opened (aware UTC); it closes ``MINUTE`` later.
    open, high, low, close
        Prices in micro-dollars, positive, ``low <= open, close <= high``.
    """

    open_time: datetime
    open: Usd
    high: Usd
    low: Usd
    close: Usd

    def __post_init__(self) -> None:
        if self.open_time.utcoffset() != timedelta(0):
            raise ValueError(f"candle time {self.open_time.isoformat()} is not aware UTC")
        if min(self.open, self.high, self.low, self.close) <= 0:
            raise ValueError("candle prices must be positive")
        if not (self.low <= min(self.open, self.close) and max(self.open, self.close) <= self.high):
            raise ValueError(f"candle at {self.open_time.isoformat()}: OHLC out of order")

    @property
    def close_time(self) -> datetime:
        """Return the instant the candle closed (its close became known)."""
        return self.open_time + MINUTE

    def to_payload(self) -> list[str]:
        """Return ``[open time, open, high, low, close]`` as canonical-JSON-safe text."""
        return [
            utc_iso(self.open_time),
            micros_to_str(self.open),
            micros_to_str(self.high),
            micros_to_str(self.low),
            micros_to_str(self.close),
        ]

    @classmethod
    def from_payload(cls, data: list[str]) -> Candle:
        """Rebuild a candle from ``to_payload``'s output."""
        stamp, o, h, low, c = data
        return cls(
            datetime.fromisoformat(stamp.replace("Z", "+00:00")),
            Usd(parse_micros(o)),
            Usd(parse_micros(h)),
            Usd(parse_micros(low)),
            Usd(parse_micros(c)),
        )
