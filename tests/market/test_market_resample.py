"""Resampling: first open, max high, min low, last close, summed volume; exact."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tradeleague.errors import DataError
from tradeleague.market import Dataset, load_dataset, resample, synthetic_dataset

HEADER = "timestamp,open,high,low,close,volume\n"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


def load(tmp_path: Path, name: str, rows: list[str]) -> Dataset:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "AAA.csv").write_text(HEADER + "".join(r + "\n" for r in rows))
    return load_dataset(folder)


def test_one_minute_to_five_minutes_epoch_anchored(tmp_path: Path) -> None:
    rows = [
        "2025-07-05T00:03:00Z,10,11,9.5,10.5,1.5",
        "2025-07-05T00:04:00Z,10.5,10.6,10.4,10.45,2",
        "2025-07-05T00:05:00Z,10.45,12,10.0,11,0.25",
        "2025-07-05T00:06:00Z,11,11.5,9,9.5,0.25",
        "2025-07-05T00:07:00Z,9.5,9.9,9.4,9.8,1",
        "2025-07-05T00:10:00Z,9.8,9.8,9.1,9.2,3",
    ]
    out = resample(load(tmp_path, "c", rows), timedelta(minutes=5))
    assert out.bar_size == timedelta(minutes=5)
    assert out.label == "c, resampled to 5m"
    got = [(b.timestamp, b.open, b.high, b.low, b.close, b.volume) for b in out.bars("AAA")]
    assert got == [
        (utc(2025, 7, 5, 0, 0), 10_000_000, 11_000_000, 9_500_000, 10_450_000, 3_500_000),
        (utc(2025, 7, 5, 0, 5), 10_450_000, 12_000_000, 9_000_000, 9_800_000, 1_500_000),
        (utc(2025, 7, 5, 0, 10), 9_800_000, 9_800_000, 9_100_000, 9_200_000, 3_000_000),
    ]
    assert out.bar_close_time(out.bars("AAA")[1]) == utc(2025, 7, 5, 0, 10)


def test_equity_hours_resample_from_the_session_open(tmp_path: Path) -> None:
    hours = ["13:30", "14:30", "15:30", "16:30", "17:30", "18:30", "19:30"]
    rows = [
        f"2025-07-02T{h}:00Z,{10 + i},{11 + i},{9 + i},{10.5 + i},{i + 1}"
        for i, h in enumerate(hours)
    ]
    src = load(tmp_path, "eq", rows)
    four = resample(src, timedelta(hours=4))
    bars = four.bars("AAA")
    assert [b.timestamp for b in bars] == [utc(2025, 7, 2, 13, 30), utc(2025, 7, 2, 17, 30)]
    assert (bars[0].open, bars[0].high, bars[0].low, bars[0].close) == (
        10_000_000,
        14_000_000,
        9_000_000,
        13_500_000,
    )
    assert bars[1].volume == (5 + 6 + 7) * 1_000_000
    assert four.bar_close_time(bars[1]) == utc(2025, 7, 2, 20)  # cut at the session close
    day = resample(src, timedelta(days=1)).bars("AAA")
    assert len(day) == 1
    assert day[0].timestamp == utc(2025, 7, 2)  # labelled by session date, like daily files
    assert (day[0].open, day[0].close, day[0].volume) == (10_000_000, 16_500_000, 28_000_000)


def test_daily_to_weekly_on_nyse_starts_on_monday() -> None:
    ds = synthetic_dataset(1, 10, seed=3, start=datetime(2025, 6, 30, tzinfo=UTC))
    weeks = resample(ds, timedelta(weeks=1))
    days = ds["SYN01"]
    got = weeks.bars("SYN01")
    # 2025-06-30 .. 07-03 (07-04 is a holiday), then 07-07 .. 07-11, then 07-14
    assert [b.timestamp for b in got] == [utc(2025, 6, 30), utc(2025, 7, 7), utc(2025, 7, 14)]
    assert got[0].open == days.open[0]
    assert got[0].close == days.close[3]
    assert got[0].high == days.high[:4].max()
    assert got[1].low == days.low[4:9].min()
    assert weeks.bar_close_time(got[0]) == utc(2025, 7, 3, 17)  # the half-day close
    assert weeks.synthetic
    assert weeks.label.startswith("synthetic (seed 3)")


def test_resample_sizes_must_be_larger_multiples() -> None:
    ds = synthetic_dataset(1, 10, seed=3, bar_size=timedelta(hours=1), calendar="24/7")
    with pytest.raises(ValueError, match="larger whole multiple"):
        resample(ds, timedelta(minutes=30))
    with pytest.raises(ValueError, match="larger whole multiple"):
        resample(ds, timedelta(minutes=90))
    daily = synthetic_dataset(1, 10, seed=3)
    with pytest.raises(DataError, match="1d or whole weeks"):
        resample(daily, timedelta(days=2))


def test_resample_conserves_volume_and_extremes() -> None:
    ds = synthetic_dataset(2, 500, seed=5, bar_size=timedelta(minutes=1), calendar="24/7")
    out = resample(ds, timedelta(hours=1))
    for symbol in ds.symbols:
        a, b = ds[symbol], out[symbol]
        assert int(a.volume.sum()) == int(b.volume.sum())
        assert int(a.high.max()) == int(b.high.max())
        assert int(a.low.min()) == int(b.low.min())
        assert b.open[0] == a.open[0]
        assert b.close[-1] == a.close[-1]
        assert (b.times % 3600 == 0).all()
