"""Accounting invariants under random trading (Hypothesis).

- W-EXE-7, S-FIL-2: no sequence of trades creates value: equity at unchanged
  prices never rises from trading, whatever the costs and sides.
- W-PF-2, S-FIL-4: under the weights league's rules cash and holdings never go
  negative; under margin rules a short is allowed.
- DESIGN principle 4: replaying the fills (through their JSON payloads)
  rebuilds the same portfolio.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.money import MICRO, Qty, Usd
from tradeleague.sim import (
    BpsPriceSlippage,
    Executed,
    Fill,
    Order,
    OrderRules,
    Portfolio,
    PpmFee,
    PpmSlippage,
    RebalanceParams,
    Side,
    execute_order,
    liquidate,
    rebalance,
)

SYMBOLS = ("AAA", "BBB", "CCC")
prices_st = st.fixed_dictionaries({s: st.integers(1, 10**12).map(Usd) for s in SYMBOLS})
orders_st = st.lists(
    st.builds(
        Order,
        st.sampled_from(SYMBOLS),
        st.sampled_from(list(Side)),
        st.integers(1, 10**10).map(Qty),
    ),
    max_size=25,
)
rules_st = st.builds(
    OrderRules,
    allow_short=st.booleans(),
    allow_negative_cash=st.booleans(),
    leverage_cap=st.none() | st.sampled_from([1, 2, 4, 10]),
    fee=st.builds(PpmFee, st.integers(0, 20_000)),
    slippage=st.builds(PpmSlippage, st.integers(0, 20_000)),
    price_slippage=st.builds(BpsPriceSlippage, st.integers(0, 50)),
)


def _replay(start: Portfolio, fills: list[Fill]) -> Portfolio:
    payloads = json.loads(json.dumps([f.to_payload() for f in fills]))
    return start.apply_all(Fill.from_payload(p) for p in payloads)


@settings(max_examples=300, deadline=None)
@given(cash=st.integers(0, 10**13), prices=prices_st, orders=orders_st, rules=rules_st)
def test_trading_never_creates_value_and_replays_exactly(
    cash: int, prices: dict[str, Usd], orders: list[Order], rules: OrderRules
) -> None:
    """W-EXE-7, S-FIL-2..5: equity at fixed prices never rises; replay rebuilds the portfolio."""
    start = Portfolio.open(Usd(cash))
    p = start
    fills: list[Fill] = []
    for order in orders:
        before = p.equity(prices)
        outcome = execute_order(p, order, prices, rules)
        if isinstance(outcome, Executed):
            p = outcome.portfolio
            fills.append(outcome.fill)
            assert p.equity(prices) <= before
        if not rules.allow_negative_cash:
            assert p.cash >= 0
        if not rules.allow_short:
            assert all(q > 0 for q in p.positions.values())
        assert all(q != 0 for q in p.positions.values())
    rebuilt = _replay(start, fills)
    assert rebuilt == p
    assert rebuilt.state() == p.state()
    assert Portfolio.from_state(p.state()) == p
    closed = liquidate(p, prices, rules)
    assert closed.portfolio.positions == {}
    assert closed.portfolio.cash <= p.equity(prices)


weights_st = st.lists(st.integers(0, 4_000), min_size=3, max_size=3).filter(
    lambda w: sum(w) <= 10_000
)


@settings(max_examples=300, deadline=None)
@given(
    cash=st.integers(0, 10**11),
    held=st.lists(st.integers(0, 10**9), min_size=3, max_size=3),
    prices=prices_st,
    rounds=st.lists(
        st.tuples(weights_st, st.sets(st.sampled_from(SYMBOLS), max_size=2)), min_size=1, max_size=4
    ),
    threshold=st.integers(0, 20_000),
    fee=st.integers(0, 5_000),
)
def test_rebalance_keeps_w_pf_2_and_never_creates_value(
    cash: int,
    held: list[int],
    prices: dict[str, Usd],
    rounds: list[tuple[list[int], set[str]]],
    threshold: int,
    fee: int,
) -> None:
    """W-EXE-1..7, W-PF-2: cash and holdings stay >= 0; value never rises; halted untouched."""
    start = Portfolio(Usd(cash), {s: Qty(q) for s, q in zip(SYMBOLS, held, strict=True) if q})
    params = RebalanceParams(threshold_ppm=threshold, fee=PpmFee(fee), slippage=PpmSlippage(fee))
    p = start
    fills: list[Fill] = []
    for weights, halted in rounds:
        targets = dict(zip(SYMBOLS, weights, strict=True))
        result = rebalance(p, targets, prices, halted, params)
        after = result.portfolio
        assert result.value == p.equity(prices)
        assert after.cash >= 0
        assert all(q > 0 for q in after.positions.values())
        assert after.equity(prices) <= result.value
        for symbol in halted:
            assert after.qty(symbol) == p.qty(symbol)
        sides = [f.side for f in result.fills]
        assert sides == sorted(sides, key=lambda s: s is Side.BUY)
        for side in (Side.SELL, Side.BUY):
            names = [f.symbol for f in result.fills if f.side is side]
            assert names == sorted(names)
        for symbol, weight in targets.items():
            if weight == 0 and symbol not in halted:
                assert after.qty(symbol) == 0
            buys = [f for f in result.fills if f.symbol == symbol and f.side is Side.BUY]
            if buys and not result.scaled:
                assert (
                    buys[0].value
                    <= result.value * weight // 10_000 - p.qty(symbol) * prices[symbol] // MICRO
                )
        fills.extend(result.fills)
        p = after
    assert _replay(start, fills) == p
