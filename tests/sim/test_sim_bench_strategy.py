"""The benchmark's vectorised strategy matches a bar-by-bar reading of it.

bench/sim_vs_peers.py finds order bars with numpy and calls the engine only on
fills; this checks that shortcut against the plain per-bar rule on small data
(S-FIL-1: orders at close t fill at open t+1; none at the last close).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "sim_vs_peers.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sim_vs_peers_under_test", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _naive_orders(close: list[int], dense: bool) -> list[int]:
    orders, long = [], False
    for t in range(30, len(close) - 1):
        want = (not long) if dense else 3 * sum(close[t - 9 : t + 1]) > sum(close[t - 29 : t + 1])
        if want != long:
            orders.append(t)
            long = want
    return orders


@pytest.mark.parametrize("dense", [False, True])
def test_event_mask_matches_the_per_bar_rule(bench: ModuleType, dense: bool) -> None:
    market = bench.make_market(4, 400, seed=7)
    assert (market.low >= 1).all()
    assert (market.low <= np.minimum(market.open, market.close)).all()
    assert (market.high >= np.maximum(market.open, market.close)).all()
    mask = bench._event_mask(market.close, dense)
    for s in range(4):
        expected = _naive_orders(market.close[s].tolist(), dense)
        assert np.flatnonzero(mask[s]).tolist() == expected


def test_tradeleague_run_counts_fills_and_values_equity(bench: ModuleType) -> None:
    market = bench.make_market(3, 300, seed=11)
    result = bench.run_tradeleague(market, False)
    assert result.fills == sum(
        len(_naive_orders(market.close[s].tolist(), False)) for s in range(3)
    )
    assert result.equity > 0
