"""Trailing returns over 1, 5 and 20 trading days, unknown without history (SPEC W-ASK-1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest

from tradeleague.market import Dataset, load_dataset, trailing_return, trailing_returns

HEADER = "timestamp,open,high,low,close,volume\n"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


@pytest.fixture
def daily(tmp_path: Path) -> Dataset:
    # sessions 2025-06-23 .. 2025-07-03 (07-04 is a holiday); close = 100 + 10 * k
    sessions = ["06-23", "06-24", "06-25", "06-26", "06-27", "06-30", "07-01", "07-02", "07-03"]
    rows = [
        f"2025-{d}T00:00:00Z,{100 + 10 * k - 1},{100 + 10 * k + 5},{100 + 10 * k - 5},"
        f"{100 + 10 * k},1"
        for k, d in enumerate(sessions)
    ]
    (tmp_path / "AAA.csv").write_text(HEADER + "".join(r + "\n" for r in rows))
    return load_dataset(tmp_path)


def test_one_day_return_after_the_close(daily: Dataset) -> None:
    """W-ASK-1: on the weekend after 07-03, the 1-day return is 07-03 close / 07-02 close - 1."""
    got = trailing_return(daily, "AAA", utc(2025, 7, 5, 12), 1)
    assert got == Fraction(180, 170) - 1


def test_returns_during_a_session_use_the_open_seen_so_far(daily: Dataset) -> None:
    moment = utc(2025, 7, 3, 15)  # session 07-03 in progress: its open (179) is the latest price
    assert trailing_return(daily, "AAA", moment, 1) == Fraction(179, 170) - 1
    assert trailing_return(daily, "AAA", moment, 5) == Fraction(179, 130) - 1


def test_returns_without_history_are_unknown(daily: Dataset) -> None:
    """W-ASK-1: a return without history is marked unknown (None)."""
    moment = utc(2025, 7, 5, 12)
    assert trailing_returns(daily, "AAA", moment) == {
        1: Fraction(1, 17),
        5: Fraction(180, 130) - 1,
        20: None,
    }
    assert trailing_return(daily, "AAA", utc(2025, 6, 23, 15), 1) is None
    assert trailing_return(daily, "AAA", utc(2025, 6, 20, 15), 1) is None
    # long after the data ends: the reference session has no bar, so unknown
    assert trailing_return(daily, "AAA", utc(2025, 8, 1, 21), 1) is None
    with pytest.raises(ValueError, match="at least one"):
        trailing_return(daily, "AAA", utc(2025, 7, 5), 0)


def test_crypto_days_are_calendar_days(tmp_path: Path) -> None:
    rows = [f"2025-07-0{d}T00:00:00Z,{d},{d},{d},{d},1" for d in range(1, 8)]
    (tmp_path / "BTCUSDT.csv").write_text(HEADER + "".join(r + "\n" for r in rows))
    ds = load_dataset(tmp_path)
    assert ds.bar_size == timedelta(days=1)
    # Sunday 07-06 12:00: latest price is the 07-06 open (6); 1 day back is 07-05's close (5)
    assert trailing_return(ds, "BTCUSDT", utc(2025, 7, 6, 12), 1) == Fraction(1, 5)
    assert trailing_return(ds, "BTCUSDT", utc(2025, 7, 6, 12), 5) == Fraction(6, 1) - 1
    assert trailing_return(ds, "BTCUSDT", utc(2025, 7, 6, 12), 6) is None  # 06-30: no bar
