"""The five real datasets in ../shared/data load, match their README and check out.

Rules: T-UNI-3 (calendar), W-ASK-1 (returns), C-2/W-RND-2 (no look-ahead), C-11 (UTC).
"""

from __future__ import annotations

import csv
import gzip
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from tradeleague.market import (
    CONTINUOUS,
    NYSE,
    Dataset,
    find_gaps,
    load_dataset,
    resample,
    trailing_returns,
)

pytestmark = pytest.mark.shared_data


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


@pytest.fixture(scope="module")
def daily(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "us_equities_daily")


@pytest.fixture(scope="module")
def hourly(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "us_equities_1h")


@pytest.fixture(scope="module")
def minute(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "crypto_1m")


def test_us_equities_daily_matches_readme(daily: Dataset) -> None:
    assert len(daily.symbols) == 77
    assert daily.rows == 125_592
    assert (daily.bar_size, daily.calendar.name) == (timedelta(days=1), NYSE)
    assert len(daily["AAPL"]) == 1663
    assert len(daily["COIN"]) == 1341
    assert len(daily["MSTR"]) == 1586
    assert daily["CRCL"].first == utc(2025, 6, 5)
    assert daily["MSTR"].last == utc(2026, 4, 24)
    # AAPL on 2020-01-02 shows 72.27 (adjusted), exact to the micro-dollar
    assert daily.bars("AAPL")[0].close == 72_271_500


def test_us_equities_daily_follows_the_nyse_calendar(daily: Dataset) -> None:
    """T-UNI-3: every symbol has every session in its range, and nothing else."""
    assert all(r.ok for r in find_gaps(daily).values())


def test_us_equities_1h_rows_and_gaps(hourly: Dataset) -> None:
    assert hourly.symbols == ("AAPL", "AMZN", "GOOGL", "META", "MSFT", "NVDA", "TSLA")
    assert all(len(hourly[s]) == 1739 for s in hourly.symbols)
    assert hourly.rows == 12_173
    assert hourly.bar_size == timedelta(hours=1)
    for report in find_gaps(hourly).values():
        assert {t.date() for t in report.missing} == {date(2026, 1, 30), date(2026, 2, 2)}
        assert len(report.missing) == 5 + 4
        assert report.missing[0] == utc(2026, 1, 30, 16, 30)
        assert report.unexpected == ()  # half-day closing prints belong to their session


def test_us_equities_1h_last_bar_is_thirty_minutes(hourly: Dataset) -> None:
    bars = {b.timestamp: b for b in hourly.bars("AAPL")}
    assert hourly.bar_close_time(bars[utc(2025, 5, 30, 19, 30)]) == utc(2025, 5, 30, 20)
    assert hourly.bar_close_time(bars[utc(2026, 2, 2, 20, 30)]) == utc(2026, 2, 2, 21)
    assert hourly.bar_close_time(bars[utc(2025, 7, 3, 17)]) == utc(2025, 7, 3, 17)


@pytest.mark.parametrize(
    ("name", "rows", "per_symbol"), [("crypto_4h", 120_439, 10_949), ("crypto_1d", 22_297, 2_027)]
)
def test_crypto_sets_match_readme(shared_data: Path, name: str, rows: int, per_symbol: int) -> None:
    ds = load_dataset(shared_data / name)
    assert len(ds.symbols) == 11
    assert all(s.endswith("USDT") for s in ds.symbols)
    assert ds.rows == rows
    assert all(len(ds[s]) == per_symbol for s in ds.symbols)
    assert ds.calendar.name == CONTINUOUS
    assert all(r.ok for r in find_gaps(ds).values())


def test_crypto_1m_has_no_gaps(minute: Dataset) -> None:
    assert minute.symbols == ("BTCUSDT",)
    assert minute.rows == 131_040
    assert minute.bar_size == timedelta(minutes=1)
    report = find_gaps(minute)["BTCUSDT"]
    assert report.ok
    assert report.expected == 131_040


def test_crypto_1m_to_5m_first_bar_by_hand(shared_data: Path, minute: Dataset) -> None:
    """The first 5m bar against the first five 1m rows read independently."""
    with gzip.open(shared_data / "crypto_1m" / "BTCUSDT.csv.gz", "rt", newline="") as f:
        reader = csv.DictReader(f)
        rows = [next(reader) for _ in range(5)]
    micro = Decimal(1_000_000)
    expect = (
        int(Decimal(rows[0]["open"]) * micro),
        max(int(Decimal(r["high"]) * micro) for r in rows),
        min(int(Decimal(r["low"]) * micro) for r in rows),
        int(Decimal(rows[4]["close"]) * micro),
        int(sum(Decimal(r["volume"]) for r in rows) * micro),
    )
    first = resample(minute, timedelta(minutes=5)).bars("BTCUSDT")[0]
    assert first.timestamp == utc(2025, 9, 1)
    assert (first.open, first.high, first.low, first.close, first.volume) == expect
    assert len(resample(minute, timedelta(minutes=5))["BTCUSDT"]) == 131_040 // 5


def test_no_look_ahead_on_a_real_half_day(daily: Dataset) -> None:
    """C-2 / W-RND-2: the 2025-07-03 close is not known before the 17:00Z early close."""
    bar = next(b for b in daily.bars("AAPL") if b.timestamp == utc(2025, 7, 3))
    assert daily.latest_price_at("AAPL", utc(2025, 7, 3, 16, 59)) == bar.open
    assert daily.latest_price_at("AAPL", utc(2025, 7, 3, 17)) == bar.close


def test_spy_returns_against_the_file(shared_data: Path, daily: Dataset) -> None:
    """W-ASK-1: 1, 5 and 20 trading-day returns as of the weekend after the last session."""
    with (shared_data / "us_equities_daily" / "SPY.csv").open(newline="") as f:
        closes = [Fraction(Decimal(r["close"])) for r in csv.DictReader(f)]
    got = trailing_returns(daily, "SPY", utc(2026, 8, 15, 12))
    assert got == {k: closes[-1] / closes[-1 - k] - 1 for k in (1, 5, 20)}
    assert trailing_returns(daily, "SPY", utc(2020, 1, 3, 22))[5] is None
