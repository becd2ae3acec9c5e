"""A local server speaking Binance's public klines REST format, over a synthetic minute series.

``live_klines_app`` serves ``/api/v3/klines`` and ``/api/v3/exchangeInfo`` as
Binance does, for one pair (BTCUSDT), over a deterministic series that runs up
to the present minute (the forming candle's close moves with the wall clock),
so ``CcxtCandles`` pointed at it (``api_base``) plays a live arena offline.
``MinuteSeries`` is the same series as a ``CandleSource`` that knows every
minute's candle at once, for a paper broker that must settle sub-minute drill
rounds without waiting for the minute to close. ``frozen_klines_app`` serves
given 4h candles of many ``<BASE>USDT`` pairs (the thesis league's crypto) in
the same format, paged as Binance pages them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.formats.thesis.candles import Candle as ThesisCandle
from tradeleague.money import Usd, micros_to_str

__all__ = [
    "EXCHANGE_INFO",
    "MinuteSeries",
    "exchange_info",
    "frozen_klines_app",
    "live_klines_app",
    "minute_close_cents",
]

EXCHANGE_INFO: dict[str, Any] = {
    "timezone": "UTC",
    "serverTime": 0,
    "symbols": [
        {
            "symbol": "BTCUSDT", "status": "TRADING", "baseAsset": "BTC", "quoteAsset": "USDT",
            "baseAssetPrecision": 8, "quotePrecision": 8, "quoteAssetPrecision": 8,
            "orderTypes": ["LIMIT", "MARKET"], "isSpotTradingAllowed": True,
            "isMarginTradingAllowed": False, "permissions": ["SPOT"],
            "filters": [
                {"filterType": "PRICE_FILTER", "minPrice": "0.01", "maxPrice": "1000000",
                 "tickSize": "0.01"},
                {"filterType": "LOT_SIZE", "minQty": "0.00001", "maxQty": "9000",
                 "stepSize": "0.00001"},
            ],
        }
    ],
}  # fmt: skip
"""Binance's ``exchangeInfo`` for the one pair served (what ``ccxt`` loads markets from)."""


def minute_close_cents(minute: int) -> int:
    """Return the series' close, in cents, of the minute with index ``minute`` (epoch minutes)."""
    return 10_000_000 + (minute * 7_919) % 20_000 - 10_000


def live_klines_app() -> Starlette:
    """Return the Binance-format app over the series, up to the present minute."""

    def klines(request: Request) -> JSONResponse:
        try:
            start = -(-int(request.query_params["startTime"]) // 60_000)  # open >= startTime
            limit = max(1, min(1_000, int(request.query_params.get("limit", "500"))))
        except (KeyError, ValueError):
            return JSONResponse({"code": -1100, "msg": "Illegal characters found"}, 400)
        now = time.time()
        current = int(now // 60)
        rows: list[list[object]] = []
        for minute in range(start, min(current, start + limit - 1) + 1):
            opened, close = minute_close_cents(minute - 1), minute_close_cents(minute)
            if minute == current:  # the forming candle: its close moves with the clock
                close = opened + int(now % 60)
            o, c = opened / 100, close / 100
            hi, lo = max(o, c) + 5.0, min(o, c) - 5.0
            rows.append(
                [minute * 60_000, f"{o:.2f}", f"{hi:.2f}", f"{lo:.2f}", f"{c:.2f}", "1.0",
                 minute * 60_000 + 59_999, "0", 1, "0", "0", "0"]
            )  # fmt: skip
        return JSONResponse(rows)

    def info(request: Request) -> JSONResponse:
        return JSONResponse(EXCHANGE_INFO)

    return Starlette(routes=[Route("/api/v3/klines", klines), Route("/api/v3/exchangeInfo", info)])


class MinuteSeries:
    """The served series' closed candles as a ``CandleSource``: every minute known at once."""

    @staticmethod
    def _at(opened: datetime) -> Candle:
        minute = int(opened.timestamp()) // 60
        o, c = minute_close_cents(minute - 1), minute_close_cents(minute)
        hi, lo = max(o, c) + 500, min(o, c) - 500
        return Candle(opened, Usd(o * 10_000), Usd(hi * 10_000), Usd(lo * 10_000), Usd(c * 10_000))

    async def history(self, symbol: str, end: datetime, count: int) -> tuple[Candle, ...]:
        """Return the ``count`` candles closing at or before ``end``, oldest first."""
        last = datetime.fromtimestamp(int(end.timestamp()) // 60 * 60, UTC)
        return tuple(self._at(last - (count - i) * MINUTE) for i in range(count))

    async def candle(self, symbol: str, open_time: datetime) -> Candle | None:
        """Return the candle opened at ``open_time`` (known at once, even before it closes)."""
        return self._at(open_time)


def exchange_info(pairs: Sequence[str]) -> dict[str, Any]:
    """Return Binance's ``exchangeInfo`` for spot ``<BASE>USDT`` pairs (what ``ccxt`` loads)."""
    filters = EXCHANGE_INFO["symbols"][0]["filters"]
    return {
        "timezone": "UTC",
        "serverTime": 0,
        "symbols": [
            {
                "symbol": pair, "status": "TRADING", "baseAsset": pair.removesuffix("USDT"),
                "quoteAsset": "USDT", "baseAssetPrecision": 8, "quotePrecision": 8,
                "quoteAssetPrecision": 8, "orderTypes": ["LIMIT", "MARKET"],
                "isSpotTradingAllowed": True, "isMarginTradingAllowed": False,
                "permissions": ["SPOT"], "filters": filters,
            }
            for pair in pairs
        ],
    }  # fmt: skip


def frozen_klines_app(
    candles: Mapping[str, Sequence[ThesisCandle]], seen: list[str] | None = None
) -> Starlette:
    """Return a Binance-format app serving ``candles`` (4h, per pair) as ``/api/v3/klines``.

    Rows are the klines opened from ``startTime`` on, at most ``limit`` (1,000
    at most), prices and volume as exact decimal text; ``seen`` collects each
    request's path and query.
    """

    def klines(request: Request) -> JSONResponse:
        if seen is not None:
            seen.append(f"{request.url.path}?{request.url.query}")
        rows_of = candles.get(request.query_params.get("symbol", ""))
        if rows_of is None:
            return JSONResponse({"code": -1121, "msg": "Invalid symbol."}, 400)
        try:
            start = int(request.query_params["startTime"]) // 1000
            limit = max(1, min(1_000, int(request.query_params.get("limit", "500"))))
        except (KeyError, ValueError):
            return JSONResponse({"code": -1100, "msg": "Illegal characters found"}, 400)
        rows: list[list[object]] = []
        for c in rows_of:
            if c.start >= start and len(rows) < limit:
                o, h, lo, cl, v = (
                    micros_to_str(x) for x in (c.open, c.high, c.low, c.close, c.volume)
                )
                rows.append(
                    [c.start * 1000, o, h, lo, cl, v, c.end * 1000 - 1, "0", 1, "0", "0", "0"]
                )
        return JSONResponse(rows)

    def info(request: Request) -> JSONResponse:
        return JSONResponse(exchange_info(sorted(candles)))

    return Starlette(routes=[Route("/api/v3/klines", klines), Route("/api/v3/exchangeInfo", info)])
