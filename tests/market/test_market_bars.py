"""Bars: validation, UTC, bar sizes (SPEC C-11)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from tradeleague.errors import DataError
from tradeleague.market import Bar, BarSeries, format_bar_size, parse_bar_size
from tradeleague.money import Qty, Usd

T0 = datetime(2025, 1, 2, tzinfo=UTC)


def bar(o: int, h: int, low: int, c: int, v: int = 0, t: datetime = T0) -> Bar:
    return Bar(t, Usd(o), Usd(h), Usd(low), Usd(c), Qty(v))


def test_valid_bar_keeps_exact_values() -> None:
    b = bar(10, 12, 9, 11, 5)
    assert (b.open, b.high, b.low, b.close, b.volume) == (10, 12, 9, 11, 5)
    with pytest.raises(AttributeError):
        b.close = Usd(3)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10, 10, 9, 11, 0), "high"),
        ((10, 12, 11, 11, 0), "low"),
        ((0, 12, 0, 11, 0), "> 0"),
        ((10, 12, 9, 11, -1), "volume"),
    ],
)
def test_invalid_ohlc_is_a_data_error(args: tuple[int, ...], message: str) -> None:
    o, h, low, c, v = args
    with pytest.raises(DataError, match=message):
        bar(o, h, low, c, v)


def test_bar_requires_integer_micro_units() -> None:
    with pytest.raises(DataError, match="integer micro-units"):
        Bar(T0, Usd(10), 12.0, Usd(9), Usd(11), Qty(0))  # type: ignore[arg-type]


def test_bar_time_must_be_aware_utc() -> None:
    """C-11: a naive or non-UTC time is refused, never guessed."""
    with pytest.raises(DataError, match="UTC"):
        bar(10, 12, 9, 11, t=datetime(2025, 1, 2))  # noqa: DTZ001
    with pytest.raises(DataError, match="UTC"):
        bar(10, 12, 9, 11, t=datetime(2025, 1, 2, tzinfo=timezone(timedelta(hours=1))))


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1m", 60), ("5m", 300), ("1h", 3600), ("4h", 14400), ("1d", 86400), ("1w", 604800)],
)
def test_bar_size_round_trip(text: str, seconds: int) -> None:
    assert parse_bar_size(text) == timedelta(seconds=seconds)
    assert format_bar_size(timedelta(seconds=seconds)) == text


def test_bar_size_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="bar size"):
        parse_bar_size("5 minutes")
    with pytest.raises(ValueError, match="positive"):
        format_bar_size(timedelta(0))


def test_series_columns_are_read_only_and_match_bars() -> None:
    times = np.array([0, 60, 120], dtype=np.int64)
    cols = [times] + [np.array([5, 6, 7], dtype=np.int64)] * 4 + [np.zeros(3, dtype=np.int64)]
    s = BarSeries("X", cols, times, times + 60)
    assert s.bars[1] == Bar(datetime.fromtimestamp(60, UTC), *(Usd(6),) * 4, Qty(0))
    assert s.closes.tolist() == [5e-6, 6e-6, 7e-6]
    with pytest.raises(ValueError):
        s.close[0] = 1
    with pytest.raises(DataError, match="strictly increasing"):
        BarSeries("X", [times[::-1], *cols[1:]], times, times)


def test_public_surface_is_importable() -> None:
    import tradeleague.market as market

    assert sorted(market.__all__) == sorted(set(market.__all__))
    for name in market.__all__:
        assert getattr(market, name) is not None
