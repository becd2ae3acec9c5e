"""The seeded synthetic generator: reproducible, valid, on the calendar, labelled."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.market import get_calendar, synthetic_dataset


def test_same_seed_same_bars_and_label() -> None:
    a = synthetic_dataset(3, 40, seed=42)
    b = synthetic_dataset(3, 40, seed=42)
    c = synthetic_dataset(3, 40, seed=43)
    assert a.synthetic
    assert a.label == "synthetic (seed 42)"
    assert a.source == "synthetic"
    for s in a.symbols:
        assert a[s].close.tolist() == b[s].close.tolist()
    assert a["SYN01"].close.tolist() != c["SYN01"].close.tolist()


def test_injected_generator_is_the_only_randomness() -> None:
    ds = synthetic_dataset(2, 20, rng=np.random.default_rng(5))
    again = synthetic_dataset(2, 20, rng=np.random.default_rng(5))
    assert ds.label == "synthetic (injected generator)"
    assert ds["SYN02"].open.tolist() == again["SYN02"].open.tolist()
    with pytest.raises(ValueError, match="seed or a numpy Generator"):
        synthetic_dataset(1, 5)


def test_daily_bars_fall_on_nyse_sessions() -> None:
    """T-UNI-3: synthetic stock bars respect the trading calendar."""
    ds = synthetic_dataset(1, 60, seed=1, start=datetime(2025, 6, 28, tzinfo=UTC))
    nyse = get_calendar("XNYS")
    days = [b.timestamp.date() for b in ds.bars("SYN01")]
    assert days[0] == date(2025, 6, 30)
    assert all(nyse.is_trading_day(d) for d in days)
    assert days == list(nyse.sessions(days[0], days[-1]))
    assert all(b.timestamp.hour == 0 for b in ds.bars("SYN01"))


def test_crypto_bars_run_round_the_clock() -> None:
    ds = synthetic_dataset(
        2, 48, seed=2, bar_size=timedelta(hours=1), calendar="24/7", symbols=["AUSDT", "BUSDT"]
    )
    times = ds["AUSDT"].times
    assert ds.symbols == ("AUSDT", "BUSDT")
    assert (np.diff(times) == 3600).all()
    assert ds.calendar.continuous


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), vol=st.floats(0.01, 3.0))
def test_every_bar_is_valid_ohlc(seed: int, vol: float) -> None:
    ds = synthetic_dataset(2, 200, seed=seed, volatility=vol, bar_size=timedelta(minutes=30))
    for s in ds.symbols:
        x = ds[s]
        assert (x.low > 0).all()
        assert (x.high >= np.maximum(x.open, x.close)).all()
        assert (x.low <= np.minimum(x.open, x.close)).all()
        assert (x.volume >= 0).all()
        assert x.open[0] == 100_000_000
