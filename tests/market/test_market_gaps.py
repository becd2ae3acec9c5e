"""Gap detection relative to the calendar and bar size (SPEC T-UNI-3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tradeleague.market import Dataset, find_gaps, load_dataset, synthetic_dataset

HEADER = "timestamp,open,high,low,close,volume\n"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


def load(tmp_path: Path, rows: list[str], name: str = "AAA") -> Dataset:
    (tmp_path / f"{name}.csv").write_text(HEADER + "".join(f"{r},1,1,1,1,1\n" for r in rows))
    return load_dataset(tmp_path)


def test_daily_equity_gaps_skip_holidays_and_weekends(tmp_path: Path) -> None:
    """T-UNI-3: no bar is expected on a day the US market is closed."""
    rows = ["2025-07-01T00:00:00Z", "2025-07-03T00:00:00Z", "2025-07-07T00:00:00Z"]
    report = find_gaps(load(tmp_path, rows))["AAA"]
    assert report.missing == (utc(2025, 7, 2),)
    assert report.expected == 4
    assert report.unexpected == ()
    assert not report.ok


def test_hourly_equity_gaps_and_half_day_closing_print(tmp_path: Path) -> None:
    hours = ["13:30", "14:30", "15:30", "16:30", "17:30", "18:30", "19:30"]
    rows = [f"2025-07-02T{h}:00Z" for h in hours]
    # half day: the last bar is a closing print stamped at the 17:00Z close
    rows += ["2025-07-03T13:30:00Z", "2025-07-03T14:30:00Z", "2025-07-03T15:30:00Z"]
    rows += ["2025-07-03T17:00:00Z"]
    rows += ["2025-07-07T13:30:00Z", "2025-07-07T15:30:00Z", "2025-07-07T15:45:00Z"]
    report = find_gaps(load(tmp_path, rows))["AAA"]
    assert report.missing == (utc(2025, 7, 7, 14, 30),)
    assert report.unexpected == (utc(2025, 7, 7, 15, 45),)
    assert report.expected == 7 + 4 + 3


def test_crypto_gaps_are_every_missing_step(tmp_path: Path) -> None:
    rows = ["2025-07-05T00:00:00Z", "2025-07-05T04:00:00Z", "2025-07-05T16:00:00Z"]
    ds = load(tmp_path, rows, name="BTCUSDT")
    assert ds.bar_size == timedelta(hours=4)
    report = find_gaps(ds)["BTCUSDT"]
    assert report.missing == (utc(2025, 7, 5, 8), utc(2025, 7, 5, 12))


def test_synthetic_data_has_no_gaps() -> None:
    for kw in (
        {"bar_size": timedelta(days=1)},
        {"bar_size": timedelta(minutes=30)},
        {"bar_size": timedelta(hours=4), "calendar": "24/7"},
    ):
        ds = synthetic_dataset(2, 300, seed=9, **kw)
        assert all(r.ok for r in find_gaps(ds).values()), kw
