"""When prices become observable: no look-ahead (SPEC C-2, W-RND-2, C-11)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.market import Dataset, Observed, load_dataset
from tradeleague.market.observe import bar_open_time

HEADER = "timestamp,open,high,low,close,volume\n"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


def load(tmp_path: Path, name: str, rows: list[str], **kw: object) -> Dataset:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "AAA.csv").write_text(HEADER + "".join(r + "\n" for r in rows))
    return load_dataset(folder, **kw)  # type: ignore[arg-type]


@pytest.fixture
def daily(tmp_path: Path) -> Dataset:
    rows = [
        "2025-07-01T00:00:00Z,10,11,9,10.5,1",
        "2025-07-02T00:00:00Z,10.6,12,10,11,1",
        "2025-07-03T00:00:00Z,11.1,12,11,11.5,1",  # half day: closes 17:00Z
        "2025-12-01T00:00:00Z,20,21,19,20.5,1",  # winter: 14:30Z .. 21:00Z
    ]
    return load(tmp_path, "daily", rows)


def test_daily_equity_close_is_the_session_close(daily: Dataset) -> None:
    """A daily bar stamped 00:00Z is a date label: it closes at the NYSE close."""
    bars = daily.bars("AAA")
    assert daily.bar_close_time(bars[0]) == utc(2025, 7, 1, 20)
    assert daily.bar_close_time(bars[2]) == utc(2025, 7, 3, 17)
    assert daily.bar_close_time(bars[3]) == utc(2025, 12, 1, 21)
    assert bar_open_time(bars[3], daily.bar_size, daily.calendar) == utc(2025, 12, 1, 14, 30)


@pytest.mark.parametrize(
    ("moment", "price", "kind"),
    [
        (utc(2025, 7, 1, 13, 29, 59), None, None),
        (utc(2025, 7, 1, 13, 30), 10_000_000, Observed.OPEN),  # first bar: its open
        (utc(2025, 7, 1, 19, 59), 10_000_000, Observed.OPEN),
        (utc(2025, 7, 1, 20), 10_500_000, Observed.CLOSE),
        (utc(2025, 7, 2, 9), 10_500_000, Observed.CLOSE),  # pre-market: yesterday's close
        (utc(2025, 7, 2, 13, 30), 10_600_000, Observed.OPEN),
        (utc(2025, 7, 3, 16, 59), 11_100_000, Observed.OPEN),
        (utc(2025, 7, 3, 17), 11_500_000, Observed.CLOSE),  # half-day close
        (utc(2025, 7, 5, 12), 11_500_000, Observed.CLOSE),  # weekend
        (utc(2025, 12, 1, 14, 29), 11_500_000, Observed.CLOSE),
    ],
)
def test_latest_price_at_daily(
    daily: Dataset, moment: datetime, price: int | None, kind: Observed | None
) -> None:
    """W-RND-2: the price read at t is the latest one observable at t, never a later one."""
    assert daily.latest_price_at("AAA", moment) == price
    seen = daily.latest_observation("AAA", moment)
    assert (seen.kind if seen else None) is kind
    if seen is not None:
        assert seen.at <= moment


def test_closes_only_reading(daily: Dataset) -> None:
    seen = daily.latest_observation("AAA", utc(2025, 7, 2, 15), include_opens=False)
    assert seen is not None
    assert (seen.price, seen.at, seen.kind) == (10_500_000, utc(2025, 7, 1, 20), Observed.CLOSE)
    assert daily.latest_observation("AAA", utc(2025, 7, 1, 15), include_opens=False) is None


def test_intraday_equity_last_bar_is_thirty_minutes(tmp_path: Path) -> None:
    rows = [
        "2025-07-02T18:30:00Z,10,11,9,10.5,1",
        "2025-07-02T19:30:00Z,10.5,11,10,10.8,1",
        "2025-07-03T15:30:00Z,11,12,10,11.2,1",
        "2025-07-03T16:30:00Z,11.2,12,11,11.9,1",
    ]
    ds = load(tmp_path, "hourly", rows, bar_size=timedelta(hours=1))
    bars = ds.bars("AAA")
    assert ds.bar_close_time(bars[0]) == utc(2025, 7, 2, 19, 30)
    assert ds.bar_close_time(bars[1]) == utc(2025, 7, 2, 20)  # last bar: 30 min
    assert ds.bar_close_time(bars[3]) == utc(2025, 7, 3, 17)  # early close
    assert ds.latest_price_at("AAA", utc(2025, 7, 2, 19, 59)) == 10_500_000
    assert ds.latest_price_at("AAA", utc(2025, 7, 2, 20)) == 10_800_000


def test_crypto_bar_closes_after_its_size(tmp_path: Path) -> None:
    rows = ["2025-07-05T00:00:00Z,10,11,9,10.5,1", "2025-07-05T00:01:00Z,10.5,11,10,10.8,1"]
    ds = load(tmp_path, "c", rows)
    assert ds.calendar.continuous
    assert ds.bar_close_time(ds.bars("AAA")[0]) == utc(2025, 7, 5, 0, 1)
    assert ds.latest_price_at("AAA", utc(2025, 7, 5, 0, 0, 59)) == 10_000_000
    assert ds.latest_price_at("AAA", utc(2025, 7, 5, 0, 1, 59)) == 10_500_000
    assert ds.latest_price_at("AAA", utc(2025, 7, 5, 0, 2)) == 10_800_000


def test_naive_moment_is_refused(daily: Dataset) -> None:
    """C-11."""
    with pytest.raises(ValueError, match="naive"):
        daily.latest_price_at("AAA", datetime(2025, 7, 2, 15))  # noqa: DTZ001


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=200)
@given(offset=st.integers(min_value=-86_400, max_value=200 * 86_400))
def test_future_bars_never_change_the_price(daily: Dataset, offset: int) -> None:
    """No look-ahead: dropping every bar that opens after t leaves the answer unchanged."""
    moment = utc(2025, 7, 1) + timedelta(seconds=offset)
    seen = daily.latest_observation("AAA", moment)
    if seen is not None:
        assert seen.at <= moment
        past = daily.select(end=moment + timedelta(seconds=1))
        assert past.latest_observation("AAA", moment) == seen
