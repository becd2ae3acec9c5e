"""The weights league's rebalance: from target weights to ordered fills (W-EXE-1..7).

`rebalance` is a pure function. Given the portfolio, target weights in basis
points (10,000 = 100%; the format has already cut any weight above 40%,
W-VAL-7), the round's prices, the halted symbols and the parameters, it returns
the new portfolio and its fills, sells first:

- W-EXE-1: value = cash + every holding at its price, halted ones included.
- W-EXE-2: for each symbol held or targeted and not halted, target value =
  value x weight (rounded down), change = target value - current value.
- W-EXE-3: a change smaller than the threshold (0.5% of value) is not traded,
  except that a holding whose target is zero is always sold in full.
- W-EXE-4: sells fill first, then buys, each group in alphabetical order.
- W-EXE-5: each fill pays a fee and slippage on its value (0.1% each).
- W-EXE-6: if cash after the sells cannot pay for every buy with its costs,
  every buy's value is scaled down by the same fraction.
- W-EXE-7: integer micro-units; values down, costs up. A buy's quantity is
  rounded down; a partial sell's quantity is rounded *up* (capped at the
  holding) so that a sell never leaves a holding above its target weight.

A sale's costs are capped at its value, so selling a dust holding can never
take cash below zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Final

from tradeleague.money import MICRO, Qty, Rounding, Usd, div_round
from tradeleague.sim.costs import FeeModel, PpmFee, PpmSlippage, SlippageModel
from tradeleague.sim.errors import SimError
from tradeleague.sim.fill import Fill, Side, fill_value
from tradeleague.sim.portfolio import Portfolio

__all__ = [
    "WEIGHT_BPS",
    "RebalanceParams",
    "RebalanceResult",
    "rebalance",
]

WEIGHT_BPS: Final = 10_000
"""Basis points in a weight of 100%."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RebalanceParams:
    """The rebalance's parameters; the defaults are the seed's preset.

    Attributes
    ----------
    threshold_ppm
        Smallest change traded, in parts per million of portfolio value (0.5% = 5,000).
    fee
        Fee on each fill's value (0.1%).
    slippage
        Slippage cost on each fill's value (0.1%).
    """

    threshold_ppm: int = 5_000
    fee: FeeModel = field(default_factory=lambda: PpmFee(1_000))
    slippage: SlippageModel = field(default_factory=lambda: PpmSlippage(1_000))

    def __post_init__(self) -> None:
        if not 0 <= self.threshold_ppm <= MICRO:
            raise ValueError("threshold_ppm must be between 0 and 1,000,000")


@dataclass(frozen=True, slots=True)
class RebalanceResult:
    """The portfolio after a rebalance and the fills that made it, in order.

    Attributes
    ----------
    portfolio
        The new portfolio.
    fills
        Sells (alphabetical), then buys (alphabetical).
    value
        The portfolio value the targets were computed from (W-EXE-1).
    scaled
        Whether the buys were scaled down for lack of cash (W-EXE-6).
    """

    portfolio: Portfolio
    fills: tuple[Fill, ...]
    value: Usd
    scaled: bool


def _check_targets(targets: Mapping[str, int], prices: Mapping[str, Usd]) -> None:
    total = 0
    for symbol, bps in targets.items():
        if not 0 <= bps <= WEIGHT_BPS:
            raise SimError(f"target weight of {symbol} is {bps} bps, outside 0..10,000")
        if bps and symbol not in prices:
            raise SimError(f"no price for targeted symbol {symbol}")
        total += bps
    if total > WEIGHT_BPS:
        raise SimError(f"target weights add up to {total} bps, above 10,000")


def _sell_fill(symbol: str, quantity: int, price: int, params: RebalanceParams) -> Fill:
    value = fill_value(quantity, price, Side.SELL)
    fee = min(params.fee.fee(symbol, Side.SELL, value), value)
    slip = min(params.slippage.slippage(symbol, Side.SELL, value), value - fee)
    return Fill(symbol, Side.SELL, Qty(quantity), Usd(price), value, Usd(fee), Usd(slip))


def _buy_fills(
    buys: list[tuple[str, int]], prices: Mapping[str, Usd], params: RebalanceParams
) -> tuple[list[Fill], int]:
    fills: list[Fill] = []
    total = 0
    for symbol, amount in buys:
        price = prices[symbol]
        quantity = div_round(amount * MICRO, price, Rounding.DOWN)
        if quantity <= 0:
            continue
        value = fill_value(quantity, price, Side.BUY)
        fee = params.fee.fee(symbol, Side.BUY, value)
        slip = params.slippage.slippage(symbol, Side.BUY, value)
        fills.append(Fill(symbol, Side.BUY, Qty(quantity), price, value, fee, slip))
        total += value + fee + slip
    return fills, total


def rebalance(
    portfolio: Portfolio,
    targets: Mapping[str, int],
    prices: Mapping[str, Usd],
    halted: AbstractSet[str] = frozenset(),
    params: RebalanceParams | None = None,
) -> RebalanceResult:
    """Trade ``portfolio`` toward ``targets`` (W-EXE-1..7; see the module docstring).

    Parameters
    ----------
    portfolio
        Cash and long holdings (W-PF-2: nothing negative).
    targets
        Target weight per symbol in basis points; a held symbol left out has
        target zero. Each 0..10,000, together at most 10,000.
    prices
        The round's price for every held or targeted symbol (for a halted one,
        its last accepted price).
    halted
        Symbols not traded this round; their holdings are left as they are.
    params
        Threshold and cost models; None means the seed's preset.

    Returns
    -------
    RebalanceResult
        The new portfolio, the ordered fills, the value used and whether buys were scaled.

    Raises
    ------
    SimError
        If a weight is out of range, they add up to more than 100%, a held or
        targeted symbol has no price, or the portfolio holds a short.
    """
    params = params or RebalanceParams()
    _check_targets(targets, prices)
    if portfolio.cash < 0 or any(q < 0 for q in portfolio.positions.values()):
        raise SimError("the weights league holds no negative cash and no shorts (W-PF-2)")
    value = portfolio.equity(prices)
    threshold = value * params.threshold_ppm
    sells: list[Fill] = []
    buys: list[tuple[str, int]] = []
    for symbol in sorted(set(portfolio.positions) | {s for s, w in targets.items() if w}):
        if symbol in halted:
            continue
        price = prices[symbol]
        held = portfolio.positions.get(symbol, 0)
        weight = targets.get(symbol, 0)
        if weight == 0:
            if held:
                sells.append(_sell_fill(symbol, held, price, params))
            continue
        change = div_round(value * weight, WEIGHT_BPS, Rounding.DOWN) - div_round(
            held * price, MICRO, Rounding.DOWN
        )
        if abs(change) * MICRO < threshold or change == 0:
            continue
        if change > 0:
            buys.append((symbol, change))
        else:
            quantity = min(held, div_round(-change * MICRO, price, Rounding.UP))
            sells.append(_sell_fill(symbol, quantity, price, params))
    after = portfolio.apply_all(sells)
    cash = after.cash
    buy_fills, cost = _buy_fills(buys, prices, params)
    scaled = False
    if cost > cash:
        scaled = True
        wanted = sum(
            amount
            + params.fee.fee(symbol, Side.BUY, Usd(amount))
            + params.slippage.slippage(symbol, Side.BUY, Usd(amount))
            for symbol, amount in buys
        )
        # Rounding costs up can overshoot the cash by a few micro-dollars: shave the
        # budget by the overshoot and scale again. The budget falls strictly each
        # pass and a budget of zero buys nothing, so the loop always ends, and it
        # never drops the buys wholesale.
        budget: int = cash
        while True:
            shrunk = [(s, div_round(a * budget, wanted, Rounding.DOWN)) for s, a in buys]
            buy_fills, cost = _buy_fills(shrunk, prices, params)
            if cost <= cash:
                break
            budget -= cost - cash
    return RebalanceResult(after.apply_all(buy_fills), (*sells, *buy_fills), value, scaled)
