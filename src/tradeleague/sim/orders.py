"""Market orders: whole-or-reject execution with a readable reason (S-FIL-*).

`execute_order` turns one order into a fill at the quoted price (moved by the
rules' price slippage) or into a `Rejection` that says why; nothing is ever
partly filled (S-FIL-3). The checks run in a fixed order, and the first that
fails decides the reason code:

1. ``invalid_quantity``: the quantity is not positive;
2. ``no_price``: there is no quoted price for the symbol;
3. ``shorting_disabled``: a short where the rules forbid shorting (S-FIL-4, W-PF-2);
4. ``position_is_short`` / ``position_is_long`` / ``exceeds_position``: the
   side does not fit the position (buy against a short, sell more than held...);
5. ``insufficient_cash``: cash would go below zero where the rules forbid it (W-PF-2);
6. ``leverage_exceeded``: a buy or short would leave the notional exposure
   above equity x leverage cap (S-FIL-5). An order that only reduces
   exposure (sell, cover) is never rejected for leverage, so an over-levered
   account can always de-risk.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tradeleague.money import Qty, Usd, format_usd, micros_to_str
from tradeleague.sim.costs import (
    FeeModel,
    NoPriceSlippage,
    PriceSlippage,
    SlippageModel,
    ZeroFee,
    ZeroSlippage,
)
from tradeleague.sim.fill import Fill, Side, fill_value
from tradeleague.sim.portfolio import Portfolio

__all__ = [
    "Executed",
    "Order",
    "OrderRules",
    "RejectReason",
    "Rejection",
    "execute_order",
    "execute_orders",
]


@dataclass(frozen=True, slots=True)
class Order:
    """A market order: buy, sell, short or cover a positive quantity (S-API-2)."""

    symbol: str
    side: Side
    qty: Qty


class RejectReason(enum.Enum):
    """Why an order was rejected; the value is the code an agent reads."""

    INVALID_QUANTITY = "invalid_quantity"
    NO_PRICE = "no_price"
    SHORTING_DISABLED = "shorting_disabled"
    POSITION_IS_SHORT = "position_is_short"
    POSITION_IS_LONG = "position_is_long"
    EXCEEDS_POSITION = "exceeds_position"
    INSUFFICIENT_CASH = "insufficient_cash"
    LEVERAGE_EXCEEDED = "leverage_exceeded"


@dataclass(frozen=True, slots=True)
class Rejection:
    """An order that did not fill, with its reason code and a sentence for people."""

    order: Order
    reason: RejectReason
    detail: str


@dataclass(frozen=True, slots=True)
class Executed:
    """An order that filled: the fill and the portfolio after it."""

    fill: Fill
    portfolio: Portfolio


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderRules:
    """What an account may do and what a fill costs.

    Attributes
    ----------
    allow_short
        Whether ``short`` orders are accepted (S-FIL-4; W-PF-2 says no).
    allow_negative_cash
        Whether cash may go below zero (margin); W-PF-2 says no.
    leverage_cap
        Notional exposure may not exceed equity times this (S-FIL-5); None: no cap.
    fee, slippage
        Costs charged on each fill's value.
    price_slippage
        How the quoted price moves against the trader before the fill (S-FIL-2).
    """

    allow_short: bool = False
    allow_negative_cash: bool = False
    leverage_cap: int | None = None
    fee: FeeModel = field(default_factory=ZeroFee)
    slippage: SlippageModel = field(default_factory=ZeroSlippage)
    price_slippage: PriceSlippage = field(default_factory=NoPriceSlippage)

    def __post_init__(self) -> None:
        if self.leverage_cap is not None and self.leverage_cap <= 0:
            raise ValueError("a leverage cap must be positive")


def _qty(micros: int) -> str:
    """Return a quantity as people write it: ``10``, ``0.5`` (not micro-units)."""
    text = micros_to_str(micros).rstrip("0").rstrip(".")
    return text or "0"


def _reject(order: Order, reason: RejectReason, detail: str) -> Rejection:
    return Rejection(order, reason, f"{order.side.value} {order.symbol}: {detail}")


def execute_order(
    portfolio: Portfolio,
    order: Order,
    prices: Mapping[str, Usd],
    rules: OrderRules,
) -> Executed | Rejection:
    """Fill ``order`` whole at ``prices[symbol]`` (plus price slippage), or reject it.

    Parameters
    ----------
    portfolio
        The account before the order.
    order
        The market order.
    prices
        Quoted prices (e.g. the next bar's opens); the leverage check also
        values the account at these.
    rules
        Shorting, cash and leverage limits, and the cost models.

    Returns
    -------
    Executed | Rejection
        The fill and the new portfolio, or the reason for rejection (module
        docstring); ``portfolio`` itself never changes.
    """
    symbol, side, quantity = order.symbol, order.side, order.qty
    if quantity <= 0:
        return _reject(order, RejectReason.INVALID_QUANTITY, "quantity must be positive")
    quoted = prices.get(symbol)
    if quoted is None or quoted <= 0:
        return _reject(order, RejectReason.NO_PRICE, "no valid price to fill at")
    held = portfolio.positions.get(symbol, 0)
    if side is Side.SHORT:
        if not rules.allow_short:
            return _reject(order, RejectReason.SHORTING_DISABLED, "shorting is not allowed")
        if held > 0:
            return _reject(order, RejectReason.POSITION_IS_LONG, "sell the long position first")
    elif side is Side.BUY:
        if held < 0:
            return _reject(order, RejectReason.POSITION_IS_SHORT, "cover the short first")
    elif side is Side.SELL:
        if quantity > held:
            return _reject(
                order,
                RejectReason.EXCEEDS_POSITION,
                f"holding is {_qty(held)}, order is {_qty(quantity)}",
            )
    elif quantity > -held:
        return _reject(
            order,
            RejectReason.EXCEEDS_POSITION,
            f"short is {_qty(-held)}, order is {_qty(quantity)}",
        )
    fill, after = _filled(portfolio, symbol, side, quantity, quoted, rules)
    if not rules.allow_negative_cash and after.cash < 0:
        return _reject(
            order,
            RejectReason.INSUFFICIENT_CASH,
            f"needs ${format_usd(-fill.cash_delta)}, cash ${format_usd(portfolio.cash)}",
        )
    cap = rules.leverage_cap
    if cap is not None and (side is Side.BUY or side is Side.SHORT):
        notional = after.notional(prices)
        if notional > after.equity(prices) * cap:
            return _reject(
                order,
                RejectReason.LEVERAGE_EXCEEDED,
                _over_cap(portfolio, order, quoted, prices, rules, cap, notional),
            )
    return Executed(fill, after)


def _filled(
    portfolio: Portfolio, symbol: str, side: Side, quantity: Qty, quoted: Usd, rules: OrderRules
) -> tuple[Fill, Portfolio]:
    """Return the fill of ``quantity`` at ``quoted`` (slippage, fees) and the portfolio after."""
    price = rules.price_slippage.fill_price(symbol, side, quoted)
    value = fill_value(quantity, price, side)
    fee = rules.fee.fee(symbol, side, value)
    slip = rules.slippage.slippage(symbol, side, value)
    fill = Fill(symbol, side, quantity, price, value, fee, slip)
    return fill, portfolio.apply(fill)


def _over_cap(
    portfolio: Portfolio,
    order: Order,
    quoted: Usd,
    prices: Mapping[str, Usd],
    rules: OrderRules,
    cap: int,
    notional: int,
) -> str:
    """Say why an order breaks the leverage cap (S-FIL-5), and the largest that would not.

    The equity quoted is the account's before the order, at ``prices``; the
    largest quantity is found by bisection on the same check, so it passes
    exactly as the order itself would be checked (slippage and fees included).
    """

    def passes(micros: int) -> bool:
        _, after = _filled(portfolio, order.symbol, order.side, Qty(micros), quoted, rules)
        cash_ok = rules.allow_negative_cash or after.cash >= 0
        return cash_ok and after.notional(prices) <= after.equity(prices) * cap

    low, high = 0, order.qty - 1  # low passes (nothing more); high: the most that might
    while low < high:
        middle = (low + high + 1) // 2
        if passes(middle):
            low = middle
        else:
            high = middle - 1
    equity = portfolio.equity(prices)
    said = (
        f"notional ${format_usd(notional)} would exceed the cap of {cap} x equity; "
        f"equity is ${format_usd(equity)} before this order"
    )
    if low == 0:
        return f"{said}, and no {order.side.value} of {order.symbol} fits: reduce exposure first"
    return f"{said}; the largest {order.side.value} that passes is {_qty(low)}"


def execute_orders(
    portfolio: Portfolio,
    orders: Iterable[Order],
    prices: Mapping[str, Usd],
    rules: OrderRules,
) -> tuple[Portfolio, tuple[Fill, ...], tuple[Rejection, ...]]:
    """Execute queued orders in sequence, each whole or rejected (S-FIL-1, S-FIL-3).

    Returns
    -------
    tuple
        The final portfolio, the fills in order, and the rejections in order.
    """
    fills: list[Fill] = []
    rejections: list[Rejection] = []
    for order in orders:
        outcome = execute_order(portfolio, order, prices, rules)
        if isinstance(outcome, Rejection):
            rejections.append(outcome)
        else:
            fills.append(outcome.fill)
            portfolio = outcome.portfolio
    return portfolio, tuple(fills), tuple(rejections)
