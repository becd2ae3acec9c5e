"""Rejections speak dollars and decimal quantities, never micro-units (issue 11)."""

from __future__ import annotations

import re

from tradeleague.money import qty, usd
from tradeleague.sim import Order, OrderRules, Portfolio, Rejection, Side, execute_order

PRICES = {"SPY": usd(100)}
_MICRO_LIKE = re.compile(r"\d{7,}")


def _detail(portfolio: Portfolio, order: Order, rules: OrderRules) -> str:
    outcome = execute_order(portfolio, order, PRICES, rules)
    assert isinstance(outcome, Rejection), outcome
    return outcome.detail


def test_leverage_rejection_in_dollars() -> None:
    """The leverage cap's rejection (S-FIL-5) names notional and equity with cents."""
    rules = OrderRules(allow_short=True, allow_negative_cash=True, leverage_cap=2)
    text = _detail(Portfolio.open(usd(1_000)), Order("SPY", Side.BUY, qty(30)), rules)
    assert "notional $3,000.00 would exceed equity $1,000.00 x 2" in text
    assert not _MICRO_LIKE.search(text.replace(",", ""))


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
