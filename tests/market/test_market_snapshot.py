"""Snapshots: prices read once, frozen, labelled (SPEC C-2, W-RND-2)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import UTC, datetime

import pytest

from tradeleague.market import Snapshot, synthetic_dataset, take_snapshot
from tradeleague.money import Usd


def test_snapshot_reads_each_price_once_and_is_frozen() -> None:
    """C-2 / W-RND-2: one read at the round's start; every participant gets the same values."""
    ds = synthetic_dataset(3, 30, seed=11)
    moment = datetime(2024, 1, 10, 15, tzinfo=UTC)
    snap = take_snapshot(ds, moment)
    assert snap.time == moment
    assert snap.symbols == ds.symbols
    assert snap.source == "synthetic (seed 11)"
    assert snap.synthetic is True
    for symbol in ds.symbols:
        assert snap.prices[symbol] == ds.latest_price_at(symbol, moment)
        assert snap.observed_at[symbol] <= moment
    with pytest.raises(FrozenInstanceError):
        snap.time = moment  # type: ignore[misc]
    with pytest.raises(TypeError):
        snap.prices["SYN01"] = Usd(1)  # type: ignore[index]
    assert take_snapshot(ds, moment) == snap


def test_snapshot_lists_symbols_without_a_price() -> None:
    ds = synthetic_dataset(2, 5, seed=1)
    snap = take_snapshot(ds, datetime(2023, 12, 1, tzinfo=UTC))
    assert snap.prices == {}
    assert snap.missing == ("SYN01", "SYN02")


def test_snapshot_validates_its_values() -> None:
    with pytest.raises(ValueError, match="aware"):
        Snapshot(datetime(2024, 1, 1), {}, "x", False)  # noqa: DTZ001
    with pytest.raises(ValueError, match="positive"):
        Snapshot(datetime(2024, 1, 1, tzinfo=UTC), {"A": Usd(0)}, "x", False)
