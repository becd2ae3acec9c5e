"""Rejections speak dollars and decimal quantities, never micro-units (issue 11)."""

from __future__ import annotations

import re

from tradeleague.money import Qty, qty, usd
from tradeleague.sim import Order, OrderRules, Portfolio, Rejection, Side, execute_order

PRICES = {"SPY": usd(100)}
_MICRO_LIKE = re.compile(r"\d{7,}")


def _detail(portfolio: Portfolio, order: Order, rules: OrderRules) -> str:
    outcome = execute_order(portfolio, order, PRICES, rules)
    assert isinstance(outcome, Rejection), outcome
    return outcome.detail


def test_leverage_rejection_in_dollars() -> None:
    """The leverage cap's rejection (S-FIL-5) names notional, the cap and equity with cents."""
    rules = OrderRules(allow_short=True, allow_negative_cash=True, leverage_cap=2)
    text = _detail(Portfolio.open(usd(1_000)), Order("SPY", Side.BUY, qty(30)), rules)
    assert "notional $3,000.00 would exceed the cap of 2 x equity" in text
    assert "equity is $1,000.00 before this order" in text
    assert "the largest buy that passes is 20" in text
    assert not _MICRO_LIKE.search(text.replace(",", ""))


def test_leverage_rejection_names_the_largest_quantity_that_passes() -> None:
    """S-FIL-5 (issue 29): the equity before the fill, and a largest quantity that does pass.

    With slippage and a fee, the largest is found on the same check: it fills,
    one micro-unit more does not.
    """
    from tradeleague.sim.costs import PpmFee

    rules = OrderRules(allow_short=True, allow_negative_cash=True, leverage_cap=4, fee=PpmFee(900))
    start = Portfolio.open(usd(10_000))
    huge = Order("SPY", Side.SHORT, qty(10**12))
    text = _detail(start, huge, rules)
    assert "equity is $10,000.00 before this order" in text
    largest = qty(text.rsplit(" ", 1)[1])
    assert not isinstance(
        execute_order(start, Order("SPY", Side.SHORT, largest), PRICES, rules), Rejection
    )
    over = Order("SPY", Side.SHORT, Qty(largest + 1))
    assert isinstance(execute_order(start, over, PRICES, rules), Rejection)


def test_cash_and_position_rejections_in_dollars_and_decimals() -> None:
    """Cash in dollars with cents, quantities as decimals (10, 0.5)."""
    cash = _detail(Portfolio.open(usd(100)), Order("SPY", Side.BUY, qty(2)), OrderRules())
    assert "needs $200.00, cash $100.00" in cash
    held = Portfolio.open(usd(1_000)).apply(
        execute_order(Portfolio.open(usd(1_000)), Order("SPY", Side.BUY, qty(10)), PRICES,
                      OrderRules()).fill  # type: ignore[union-attr]
    )  # fmt: skip
    sell = _detail(held, Order("SPY", Side.SELL, qty("10.5")), OrderRules())
    assert "holding is 10, order is 10.5" in sell
