"""Live candles through ccxt, against a local server speaking Binance's REST format (D-RND-1)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from direction_helpers import START  # type: ignore[import-not-found]
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tradeleague.broker import BinaryOrder, PaperBroker
from tradeleague.clock import ReplayClock
from tradeleague.feeds.candles.frozen import FrozenCandles
from tradeleague.feeds.candles.live import CcxtCandles
from tradeleague.market import Dataset
from tradeleague.money import usd
from tradeleague.sim import Direction
from tradeleague.testing.binance import EXCHANGE_INFO
from tradeleague.testing.server import serve_asgi


def _binance_app(dataset: Dataset, requests: list[str]) -> Starlette:
    series = dataset["BTCUSDT"]

    def klines(request: Request) -> JSONResponse:
        requests.append(str(request.url))
        start = int(request.query_params["startTime"]) // 1000
        limit = int(request.query_params.get("limit", "500"))
        rows: list[list[object]] = []
        for i, t in enumerate(series.times.tolist()):
            if t >= start and len(rows) < limit:
                o, h, lo, c = (f"{int(col[i]) / 1_000_000:.2f}" for col in
                               (series.open, series.high, series.low, series.close))  # fmt: skip
                rows.append(
                    [t * 1000, o, h, lo, c, "1.0", t * 1000 + 59_999, "0", 1, "0", "0", "0"]
                )
        return JSONResponse(rows)

    def info(request: Request) -> JSONResponse:
        return JSONResponse(EXCHANGE_INFO)

    return Starlette(routes=[Route("/api/v3/klines", klines), Route("/api/v3/exchangeInfo", info)])


@pytest.fixture
def binance(btc: Dataset) -> Iterator[tuple[str, list[str]]]:
    requests: list[str] = []
    with serve_asgi(_binance_app(btc, requests)) as url:  # start deadline + liveness check
        yield url, requests


async def test_direction_ccxt_candles_match_the_frozen_ones(
    btc: Dataset, binance: tuple[str, list[str]]
) -> None:
    """D-RND-1, C-11: the live adapter serves the same closed candles as the frozen source."""
    base, requests = binance
    clock = ReplayClock(START + timedelta(seconds=30))
    live = CcxtCandles.create(
        "binance", clock, {"BTCUSDT": "BTC/USDT"}, api_base=base,
        options={"fetchMarkets": {"types": ["spot"]}, "defaultType": "spot"},
    )  # fmt: skip
    frozen = FrozenCandles(btc, clock)
    try:
        got = await live.history("BTCUSDT", START, 180)
        assert got == await frozen.history("BTCUSDT", START, 180)
        assert len(got) == 180
        assert got[-1].close_time == START
        assert await live.candle("BTCUSDT", START) is None  # still open at 06:00:30
        assert any("/api/v3/klines" in r and "symbol=BTCUSDT" in r for r in requests)
        clock.set(START + timedelta(minutes=5))
        broker = PaperBroker(live)
        await broker.open_account("m", usd(50_000))
        order = BinaryOrder(
            account="m", kind=Direction.CALL, symbol="BTCUSDT", stake=usd(10),
            strike=got[-1].close, placed_at=START + timedelta(seconds=3),
            expiry=START + timedelta(minutes=5), client_ref="r/m",
        )  # fmt: skip
        placed = await broker.place(order)
        (close,) = await broker.closes([placed.trade_id])  # type: ignore[union-attr]
        exit_candle = await frozen.candle("BTCUSDT", START + timedelta(minutes=4))
        assert exit_candle is not None
        assert close.exit_price == exit_candle.close
    finally:
        await live.aclose()
