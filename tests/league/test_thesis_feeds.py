"""Live crypto candles through ccxt against a local server speaking Binance's REST format."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tradeleague.clock import ReplayClock
from tradeleague.feeds.thesis import BinanceCandles
from tradeleague.formats.thesis.candles import candles_of, latest_price
from tradeleague.market.bars import BarSeries
from tradeleague.market.loader import load_dataset
from tradeleague.testing.binance import frozen_klines_app
from tradeleague.testing.server import serve_asgi


@pytest.fixture
def eth(shared_data: Path) -> BarSeries:
    """ETHUSDT's 4h bars from the frozen folder."""
    return load_dataset(shared_data / "crypto_4h", symbols=["ETHUSDT"])["ETHUSDT"]


@pytest.fixture
def binance(eth: BarSeries) -> Iterator[tuple[str, list[str]]]:
    requests: list[str] = []
    with serve_asgi(frozen_klines_app({"ETHUSDT": candles_of(eth)}, requests)) as url:
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
