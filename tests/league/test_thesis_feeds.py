"""Live crypto candles through ccxt against a local server speaking Binance's REST format."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tradeleague.clock import ReplayClock
from tradeleague.feeds.thesis import BinanceCandles
from tradeleague.formats.thesis.candles import candles_of, latest_price
from tradeleague.market.bars import BarSeries
from tradeleague.market.loader import load_dataset
from tradeleague.testing.server import serve_asgi

_FILTERS = [
    {"filterType": "PRICE_FILTER", "minPrice": "0.01", "maxPrice": "1000000", "tickSize": "0.01"},
    {"filterType": "LOT_SIZE", "minQty": "0.0001", "maxQty": "9000", "stepSize": "0.0001"},
]
EXCHANGE_INFO = {
    "timezone": "UTC",
    "serverTime": 0,
    "symbols": [
        {
            "symbol": "ETHUSDT", "status": "TRADING", "baseAsset": "ETH", "quoteAsset": "USDT",
            "baseAssetPrecision": 8, "quotePrecision": 8, "quoteAssetPrecision": 8,
            "orderTypes": ["LIMIT", "MARKET"], "isSpotTradingAllowed": True,
            "isMarginTradingAllowed": False, "permissions": ["SPOT"], "filters": _FILTERS,
        }
    ],
}  # fmt: skip


def _app(series: BarSeries, requests: list[str]) -> Starlette:
    def klines(request: Request) -> JSONResponse:
        requests.append(str(request.url))
        assert request.query_params["interval"] == "4h"
        start = int(request.query_params["startTime"]) // 1000
        limit = min(int(request.query_params.get("limit", "500")), 1000)
        rows: list[list[object]] = []
        for i, t in enumerate(series.times.tolist()):
            if t >= start and len(rows) < limit:
                o, h, lo, c, v = (
                    str(int(col[i]) / 1_000_000)
                    for col in (series.open, series.high, series.low, series.close, series.volume)
                )
                rows.append(
                    [t * 1000, o, h, lo, c, v, t * 1000 + 14_399_999, "0", 1, "0", "0", "0"]
                )
        return JSONResponse(rows)

    def info(request: Request) -> JSONResponse:
        return JSONResponse(EXCHANGE_INFO)

    return Starlette(routes=[Route("/api/v3/klines", klines), Route("/api/v3/exchangeInfo", info)])


@pytest.fixture
def eth(shared_data: Path) -> BarSeries:
    """ETHUSDT's 4h bars from the frozen folder."""
    return load_dataset(shared_data / "crypto_4h", symbols=["ETHUSDT"])["ETHUSDT"]


@pytest.fixture
def binance(eth: BarSeries) -> Iterator[tuple[str, list[str]]]:
    requests: list[str] = []
    with serve_asgi(_app(eth, requests)) as url:
        yield url, requests


async def test_ccxt_candles_match_the_frozen_folder_t_uni_2(
    eth: BarSeries, binance: tuple[str, list[str]]
) -> None:
    """T-UNI-2, T-CYC-2: Binance 4h candles through ccxt, paged, equal the frozen ones up to now."""
    base, requests = binance
    now = datetime(2025, 3, 4, 17, 30, tzinfo=UTC)
    since = now - timedelta(days=200)  # more than one page of 1,000 candles
    live = BinanceCandles.create(ReplayClock(now), api_base=base)
    try:
        got = await live.candles("ETHUSDT", since)
    finally:
        await live.aclose()
    frozen = [c for c in candles_of(eth) if since.timestamp() <= c.start <= now.timestamp()]
    assert list(got) == frozen
    assert len(got) > 1000
    assert sum("/api/v3/klines" in r and "symbol=ETHUSDT" in r for r in requests) >= 2
    moment = int(now.timestamp())
    assert got[-1].start == int(datetime(2025, 3, 4, 16, tzinfo=UTC).timestamp())  # still open
    assert latest_price(got, moment) == got[-1].open
