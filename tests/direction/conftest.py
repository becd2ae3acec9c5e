"""Fixtures of the direction-arena tests: candles and a store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tradeleague.market import Dataset, load_dataset, synthetic_dataset
from tradeleague.store import Store, open_store


@pytest.fixture(scope="session")
def btc(shared_data: Path) -> Dataset:
    """Binance BTCUSDT one-minute candles, the first two days of September 2025."""
    return load_dataset(
        shared_data / "crypto_1m",
        start=datetime(2025, 9, 1, tzinfo=UTC),
        end=datetime(2025, 9, 3, tzinfo=UTC),
    )


@pytest.fixture(scope="session")
def synthetic_btc() -> Dataset:
    """A seeded synthetic one-minute BTCUSDT walk (no shared data needed)."""
    return synthetic_dataset(
        1,
        24 * 60,
        seed=11,
        bar_size=timedelta(minutes=1),
        calendar="24/7",
        start=datetime(2025, 9, 1, tzinfo=UTC),
        symbols=["BTCUSDT"],
        start_price=100_000_000_000,  # type: ignore[arg-type]
        volatility=0.6,
    )


@pytest.fixture
def store(sqlite_url: str) -> Iterator[Store]:
    with open_store(sqlite_url) as opened:
        yield opened
