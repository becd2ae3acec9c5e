"""`rebalance_many` equals `rebalance` row by row, to the micro-dollar (W-EXE-1..7, issue 16).

Random portfolios (fresh cash, or cash and holdings), random targets summing to
at most 100%, random prices and halts, for several trades in a row: every row of
the array fold ends with the same cash and holdings as `rebalance` applied to
that portfolio alone, scaled buys (W-EXE-6) included.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.money import Qty, Usd
from tradeleague.sim import Portfolio, SimError, rebalance
from tradeleague.sim.rebalance_many import Books, rebalance_many
from tradeleague.sim.rebalancing import RebalanceParams

SYMBOLS = ("AAA", "BBB", "CCC", "DDD")


@st.composite
def _targets(draw: st.DrawFn) -> list[int]:
    raw = draw(st.lists(st.integers(0, 10_000), min_size=len(SYMBOLS), max_size=len(SYMBOLS)))
    zeroed = [w if draw(st.booleans()) else 0 for w in raw]
    total = sum(zeroed)
    if total > 10_000:
        zeroed = [w * 10_000 // total for w in zeroed]
    return zeroed


_BASE = (1_234_567, 87_650_000, 412_000_000, 9_990)
"""Base prices: from a cent to a few hundred dollars; each step moves them 0.5x to 2x."""

_prices = st.lists(st.integers(50, 200), min_size=len(SYMBOLS), max_size=len(SYMBOLS)).map(
    lambda moves: [b * m // 100 for b, m in zip(_BASE, moves, strict=True)]
)


@settings(max_examples=150, deadline=None)
@given(
    cash=st.lists(st.integers(0, 10**11), min_size=1, max_size=5),
    steps=st.lists(
        st.tuples(
            st.lists(_targets(), min_size=5, max_size=5),
            _prices,
            st.lists(st.booleans(), min_size=len(SYMBOLS), max_size=len(SYMBOLS)),
        ),
        min_size=1,
        max_size=4,
    ),
    threshold=st.sampled_from([0, 5_000, 50_000]),
)
def test_rows_equal_the_one_portfolio_rebalance(
    cash: list[int],
    steps: list[tuple[list[list[int]], list[int], list[bool]]],
    threshold: int,
) -> None:
    """W-EXE-1..7: each row of the batch equals `rebalance` of that row, after every step."""
    params = RebalanceParams(threshold_ppm=threshold)
    n = len(cash)
    books = Books(np.array(cash, dtype=np.int64), np.zeros((n, len(SYMBOLS)), dtype=np.int64))
    singles = [Portfolio.open(Usd(c)) for c in cash]
    for targets, prices, halts in steps:
        priced = {s: Usd(p) for s, p in zip(SYMBOLS, prices, strict=True)}
        halted = {s for s, h in zip(SYMBOLS, halts, strict=True) if h}
        books = rebalance_many(
            books,
            np.array(targets[:n], dtype=np.int64),
            np.array(prices, dtype=np.int64),
            np.array(halts, dtype=np.bool_),
            params,
        )
        for i in range(n):
            wanted = {s: w for s, w in zip(SYMBOLS, targets[i], strict=True) if w}
            singles[i] = rebalance(singles[i], wanted, priced, halted, params).portfolio
    for i, single in enumerate(singles):
        assert int(books.cash[i]) == single.cash
        got = {s: Qty(int(q)) for s, q in zip(SYMBOLS, books.positions[i], strict=True) if q}
        assert got == dict(single.positions)


def test_a_row_over_100_percent_is_refused() -> None:
    """Targets adding up to more than 10,000 bps are an error, as in `rebalance`."""
    books = Books.open(1, 2, 10**10)
    with pytest.raises(SimError):
        rebalance_many(books, np.array([[6_000, 5_000]], dtype=np.int64), np.array([10**6, 10**6]))


def test_scaled_buys_match() -> None:
    """W-EXE-6: buys of 100% that costs cannot pay are scaled exactly as `rebalance` scales."""
    prices = {"AAA": Usd(123_456_789), "BBB": Usd(987_654)}
    single = rebalance(Portfolio.open(Usd(10**10)), {"AAA": 5_000, "BBB": 5_000}, prices)
    assert single.scaled
    books = rebalance_many(
        Books.open(1, 2, 10**10),
        np.array([[5_000, 5_000]], dtype=np.int64),
        np.array(list(prices.values()), dtype=np.int64),
    )
    assert int(books.cash[0]) == single.portfolio.cash
    assert [int(q) for q in books.positions[0]] == [
        single.portfolio.positions["AAA"],
        single.portfolio.positions["BBB"],
    ]


def test_amounts_beyond_int64_are_refused() -> None:
    """A fold that could overflow int64 raises instead of returning a wrong figure."""
    books = Books(np.array([10**11]), np.array([[10**17]], dtype=np.int64))
    with pytest.raises(SimError):
        rebalance_many(books, np.array([[0]], dtype=np.int64), np.array([5 * 10**9]))
