"""The batch fill kernel equals `execute_order` order by order (S-FIL-1..4, W-PF-2; issue 16).

Random markets and order streams (every side, some invalid quantities, missing
prices, shorts allowed or not, negative cash allowed or not, rate-based costs):
the batch kernel's status, fill values and costs per order, and its final
account, equal a loop of `execute_order`, exactly. The compiled kernel (numba,
installed by ``make test`` through the dev extra) is tied to the same loop.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.money import Qty, Usd
from tradeleague.sim import (
    Executed,
    Order,
    OrderRules,
    Portfolio,
    PpmFee,
    PpmSlippage,
    SimError,
    execute_order,
)
from tradeleague.sim.batch import FILLED, REASONS, SIDES, compiled_available, execute_batch

UNIVERSE = ("AAA", "BBB", "CCC")

_orders = st.lists(
    st.tuples(
        st.integers(0, len(UNIVERSE) - 1),
        st.integers(0, 3),
        st.one_of(st.integers(1, 5 * 10**7), st.integers(-2, 0)),
        st.one_of(st.integers(1, 10**9), st.just(0)),
    ),
    max_size=40,
)


def _reference(
    cash: int,
    orders: list[tuple[int, int, int, int]],
    rules: OrderRules,
) -> tuple[list[int], list[tuple[int, int, int]], Portfolio]:
    portfolio = Portfolio.open(Usd(cash))
    status: list[int] = []
    fills: list[tuple[int, int, int]] = []
    codes = {reason: code for code, reason in REASONS.items()}
    for s, side, qty, price in orders:
        symbol = UNIVERSE[s]
        prices = {symbol: Usd(price)} if price else {}
        outcome = execute_order(portfolio, Order(symbol, SIDES[side], Qty(qty)), prices, rules)
        if isinstance(outcome, Executed):
            portfolio = outcome.portfolio
            status.append(FILLED)
            fills.append((outcome.fill.value, outcome.fill.fee, outcome.fill.slippage))
        else:
            status.append(codes[outcome.reason])
            fills.append((0, 0, 0))
    return status, fills, portfolio


@pytest.mark.parametrize("compiled", [False, True])
@settings(max_examples=150, deadline=None)
@given(
    cash=st.integers(0, 10**11),
    orders=_orders,
    fee=st.sampled_from([0, 1_000, 2_500]),
    slip=st.sampled_from([0, 1_000]),
    allow_short=st.booleans(),
    allow_negative_cash=st.booleans(),
)
def test_batch_equals_execute_order(
    compiled: bool,
    cash: int,
    orders: list[tuple[int, int, int, int]],
    fee: int,
    slip: int,
    allow_short: bool,
    allow_negative_cash: bool,
) -> None:
    """Each order: same status, same value and costs; the same final cash and holdings."""
    rules = OrderRules(
        fee=PpmFee(fee),
        slippage=PpmSlippage(slip),
        allow_short=allow_short,
        allow_negative_cash=allow_negative_cash,
    )
    status, fills, portfolio = _reference(cash, orders, rules)
    columns = list(zip(*orders, strict=True)) if orders else [(), (), (), ()]
    syms, sides, qtys, prices = (np.array(c, dtype=np.int64) for c in columns)
    got = execute_batch(
        Portfolio.open(Usd(cash)), UNIVERSE, syms, sides, qtys, prices, rules, compiled=compiled
    )
    assert got.status.tolist() == status
    assert (
        list(zip(got.values.tolist(), got.fees.tolist(), got.slippage.tolist(), strict=True))
        == fills
    )
    assert got.portfolio == portfolio


def test_unsupported_rules_are_refused() -> None:
    """A leverage cap is not in the kernel: an error, not a silent difference."""
    empty = np.zeros(0, dtype=np.int64)
    with pytest.raises(SimError):
        execute_batch(
            Portfolio.open(Usd(10)),
            UNIVERSE,
            empty,
            empty,
            empty,
            empty,
            OrderRules(leverage_cap=2),
        )


def test_the_compiled_kernel_is_what_the_tests_tie() -> None:
    """numba is part of ``make test`` (the dev extra): ``compiled=True`` runs the compiled kernel.

    Without it every ``compiled=True`` case above would silently test the
    reference loop against itself.
    """
    import importlib.util

    assert importlib.util.find_spec("numba") is not None
    assert compiled_available()


@pytest.mark.parametrize("compiled", [False, True])
def test_amounts_past_64_bits_are_refused(compiled: bool) -> None:
    """An order whose value would wrap a 64-bit integer raises instead of filling wrongly."""
    one = np.array([0], dtype=np.int64)
    with pytest.raises(SimError):
        execute_batch(
            Portfolio.open(Usd(10)),
            UNIVERSE,
            one,
            one,
            np.array([2**60], dtype=np.int64),
            np.array([2**40], dtype=np.int64),
            OrderRules(allow_negative_cash=True),
            compiled=compiled,
        )
