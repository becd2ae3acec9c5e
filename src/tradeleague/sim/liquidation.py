"""Forced liquidation of an over-levered account (S-LIQ-1).

At the start of a bar, an account whose equity is below notional / (2 x
leverage cap) has every position closed at the next bar's open. The test is
done in exact integers: ``2 x cap x equity < notional``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tradeleague.money import Qty, Usd
from tradeleague.sim.errors import SimError
from tradeleague.sim.fill import Fill, Side, fill_value
from tradeleague.sim.orders import OrderRules
from tradeleague.sim.portfolio import Portfolio

__all__ = ["Liquidation", "liquidate", "needs_liquidation"]


@dataclass(frozen=True, slots=True)
class Liquidation:
    """The result of a forced close: the flat portfolio and its fills (alphabetical)."""

    portfolio: Portfolio
    fills: tuple[Fill, ...]
    liquidated: bool = True


def needs_liquidation(portfolio: Portfolio, prices: Mapping[str, Usd], leverage_cap: int) -> bool:
    """Return whether equity < notional / (2 x leverage cap) at ``prices`` (S-LIQ-1)."""
    if leverage_cap <= 0:
        raise ValueError("a leverage cap must be positive")
    if not portfolio.positions:
        return False
    return 2 * leverage_cap * portfolio.equity(prices) < portfolio.notional(prices)


def liquidate(
    portfolio: Portfolio, next_prices: Mapping[str, Usd], rules: OrderRules
) -> Liquidation:
    """Close every position at ``next_prices`` (the next bar's open), whatever the cash.

    Longs are sold and shorts covered in alphabetical order of symbol, with the
    rules' price slippage and costs; no limit can reject a forced close.

    Raises
    ------
    SimError
        If a held symbol has no price.
    """
    fills: list[Fill] = []
    for symbol in sorted(portfolio.positions):
        held = portfolio.positions[symbol]
        quoted = next_prices.get(symbol)
        if quoted is None or quoted <= 0:
            raise SimError(f"cannot liquidate {symbol}: no valid price")
        side = Side.SELL if held > 0 else Side.COVER
        price = rules.price_slippage.fill_price(symbol, side, quoted)
        quantity = Qty(abs(held))
        value = fill_value(quantity, price, side)
        fill = Fill(
            symbol,
            side,
            quantity,
            price,
            value,
            rules.fee.fee(symbol, side, value),
            rules.slippage.slippage(symbol, side, value),
        )
        portfolio = portfolio.apply(fill)
        fills.append(fill)
    return Liquidation(portfolio, tuple(fills))
