"""One-minute candle sources: frozen files and a live exchange through ccxt (SPEC D-RND-1)."""

from tradeleague.feeds.candles.base import CandleSource, LookAheadError
from tradeleague.feeds.candles.frozen import FrozenCandles

__all__ = ["CandleSource", "FrozenCandles", "LookAheadError"]
