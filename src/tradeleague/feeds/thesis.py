"""Live crypto candles for the thesis league through ``ccxt`` (Binance, SPEC T-UNI-2, T-CYC-2).

``BinanceCandles`` reads 4h candles of a ``<BASE>USDT`` pair through
``fetch_ohlcv`` (paged), as the thesis tape's candles: a candle's open is
known from its start, the rest from its end (``formats/thesis/candles.py``), so
the candle still open at the clock's instant is kept for its open only. Prices
are read through their shortest decimal text and rounded half-even to the
micro-unit at this boundary. ``api_base`` points the REST URLs at another host
(a mirror, or a local server speaking Binance's format in tests).
"""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import ccxt.async_support as ccxt_async

from tradeleague.clock import Clock
from tradeleague.errors import DataError
from tradeleague.feeds.candles.live import rebase_exchange
from tradeleague.formats.thesis.candles import Candle
from tradeleague.money import MICRO

__all__ = ["BinanceCandles"]

_FOUR_HOURS = 4 * 3600
_PAGE = 1000
_STEP = Decimal(1) / MICRO


def _micro(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise DataError(f"exchange value {value!r} is not a number")
    text = repr(value) if isinstance(value, float) else str(value)
    return int(Decimal(text).quantize(_STEP, rounding=ROUND_HALF_EVEN) * MICRO)


class BinanceCandles:
    """4h candles of Binance spot pairs through ``ccxt``.

    Parameters
    ----------
    exchange
        A ``ccxt.async_support`` exchange (closed with ``aclose``).
    clock
        The clock that says which candles have opened.
    """

    def __init__(self, exchange: Any, clock: Clock) -> None:
        self._exchange = exchange
        self._clock = clock

    @classmethod
    def create(cls, clock: Clock, *, api_base: str | None = None) -> BinanceCandles:
        """Build the source over Binance's spot REST API (or ``api_base``)."""
        exchange = ccxt_async.binance(
            {"options": {"fetchMarkets": {"types": ["spot"]}, "defaultType": "spot"}}
        )
        if api_base is not None:
            rebase_exchange(exchange, api_base)
        return cls(exchange, clock)

    async def aclose(self) -> None:
        """Close the exchange's HTTP session."""
        await self._exchange.close()

    async def candles(self, pair: str, since: datetime) -> tuple[Candle, ...]:
        """Return the 4h candles of ``pair`` (``ETHUSDT``) opened from ``since`` to now.

        Raises
        ------
        DataError
            If ``pair`` is not a USDT pair, or the exchange sends a malformed row.
        """
        if not pair.endswith("USDT") or len(pair) <= 4:
            raise DataError(f"{pair!r} is not a USDT pair")
        market = f"{pair[:-4]}/USDT"
        now = int(self._clock.now().timestamp())
        start = -(-int(since.timestamp()) // _FOUR_HOURS) * _FOUR_HOURS
        out: list[Candle] = []
        while start <= now:
            rows = await self._exchange.fetch_ohlcv(market, "4h", since=start * 1000, limit=_PAGE)
            if not rows:
                break
            for row in rows:
                if not isinstance(row, list | tuple) or len(row) < 6:
                    raise DataError(f"{pair}: malformed candle row {row!r}")
                opened = int(row[0]) // 1000
                if opened < start or opened > now or (out and opened <= out[-1].start):
                    continue
                o, h, lo, c, v = (_micro(x) for x in row[1:6])
                out.append(Candle(opened, opened + _FOUR_HOURS, o, h, lo, c, v))
            last = int(rows[-1][0]) // 1000
            if last < start:
                break
            start = last + _FOUR_HOURS
        return tuple(out)
