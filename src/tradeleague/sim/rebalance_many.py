"""The weights rebalance for many portfolios at once, in NumPy (W-EXE-1..7).

`rebalance_many` applies `tradeleague.sim.rebalance` to N portfolios over the
same symbols and prices in one pass of integer array arithmetic: the same
values, thresholds, sells first, fees and slippage rounded up, quantities
rounded as `rebalance` rounds them, and the same scaling of buys when cash
runs short (W-EXE-6), so each row ends exactly where `rebalance` would take
that portfolio, to the micro-dollar. It only knows the built-in cost model
(a fee and a slippage, each a rate in parts per million of a fill's value).

Amounts are int64 micro-units. The one product that can pass 2**63 (a buy's
amount times the scaling budget) is computed on Python integers for the
scaled rows only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tradeleague.money import MICRO
from tradeleague.sim.costs import PpmFee, PpmSlippage
from tradeleague.sim.errors import SimError
from tradeleague.sim.rebalancing import WEIGHT_BPS, RebalanceParams

__all__ = ["Books", "rebalance_many"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Books:
    """N portfolios over the same S symbols.

    Attributes
    ----------
    cash
        Shape (N,): cash in micro-dollars.
    positions
        Shape (N, S): quantities in micro-units, never negative.
    """

    cash: Ints
    positions: Ints

    @classmethod
    def open(cls, agents: int, symbols: int, cash: int) -> Books:
        """Return ``agents`` portfolios holding ``cash`` and nothing else."""
        return cls(
            np.full(agents, cash, dtype=np.int64), np.zeros((agents, symbols), dtype=np.int64)
        )

    def equity(self, prices: Ints) -> Ints:
        """Return each portfolio's value: cash plus holdings rounded down (W-EXE-1)."""
        out: Ints = self.cash + (self.positions * prices // MICRO).sum(axis=1)
        return out


_SAFE = float(2**62)
"""The largest product the fold lets int64 arithmetic reach (checked in floats first)."""


def _check_range(books: Books, prices: Ints) -> None:
    held = (books.positions.astype(np.float64) * prices.astype(np.float64)).sum(axis=1)
    worst = float((books.cash.astype(np.float64) * MICRO + held).max(initial=0.0))
    if worst * 10 >= _SAFE:
        raise SimError("amounts too large for the array rebalance; use rebalance")


def _ceil_div(a: Ints, b: Ints | int) -> Ints:
    out: Ints = -((-a) // b)
    return out


def _rates(params: RebalanceParams) -> tuple[int, int]:
    fee, slip = params.fee, params.slippage
    if not isinstance(fee, PpmFee) or not isinstance(slip, PpmSlippage):
        raise SimError("rebalance_many knows only rate-based fees and slippage")
    return fee.rate_ppm, slip.rate_ppm


def _buy_cost(amount: Ints, prices: Ints, fee_ppm: int, slip_ppm: int) -> tuple[Ints, Ints]:
    """Return (quantity, total cost) of buying ``amount`` of each symbol (zero: no fill)."""
    quantity = np.where(amount > 0, amount * MICRO // prices, 0)
    value = _ceil_div(quantity * prices, MICRO)
    cost = value + _ceil_div(value * fee_ppm, MICRO) + _ceil_div(value * slip_ppm, MICRO)
    return quantity, np.where(quantity > 0, cost, 0)


def rebalance_many(
    books: Books,
    targets: Ints,
    prices: Ints,
    halted: Bools | None = None,
    params: RebalanceParams | None = None,
) -> Books:
    """Trade every portfolio of ``books`` toward its row of ``targets``, as `rebalance` does.

    Parameters
    ----------
    books
        The portfolios (N rows over S symbols).
    targets
        Shape (N, S): target weights in basis points, each row at most 10,000 in all.
    prices
        Shape (S,): the round's price of each symbol, in micro-dollars (all positive).
    halted
        Shape (S,): symbols not traded this round.
    params
        Threshold and rate-based costs; None means the seed's preset.

    Returns
    -------
    Books
        The portfolios after the sells and the (possibly scaled) buys.

    Raises
    ------
    SimError
        If a weight is out of range, a row adds up to more than 100%, a price is
        not positive, or the cost models are not rate-based.
    """
    params = params or RebalanceParams()
    fee_ppm, slip_ppm = _rates(params)
    if targets.shape != books.positions.shape:
        raise SimError("targets must have one row per portfolio and one column per symbol")
    if (targets < 0).any() or (targets > WEIGHT_BPS).any():
        raise SimError("target weights must be between 0 and 10,000 bps")
    if (targets.sum(axis=1) > WEIGHT_BPS).any():
        raise SimError("target weights add up to more than 10,000 bps")
    if (prices <= 0).any():
        raise SimError("every price must be positive")
    if (books.cash < 0).any() or (books.positions < 0).any():
        raise SimError("the weights league holds no negative cash and no shorts (W-PF-2)")
    _check_range(books, prices)
    held = books.positions
    traded = np.ones(prices.shape, dtype=np.bool_) if halted is None else ~halted
    value = books.equity(prices)[:, None]
    change = value * targets // WEIGHT_BPS - held * prices // MICRO
    big = (np.abs(change) * MICRO >= value * params.threshold_ppm) & (change != 0)
    live = traded & (targets > 0) & big
    sell_all = traded & (targets == 0) & (held > 0)
    partial = live & (change < 0)
    sell_qty = np.where(sell_all, held, 0)
    sell_qty = np.where(partial, np.minimum(held, _ceil_div(-change * MICRO, prices)), sell_qty)
    sell_value = sell_qty * prices // MICRO
    sell_fee = np.minimum(_ceil_div(sell_value * fee_ppm, MICRO), sell_value)
    sell_slip = np.minimum(_ceil_div(sell_value * slip_ppm, MICRO), sell_value - sell_fee)
    cash = books.cash + (sell_value - sell_fee - sell_slip).sum(axis=1)
    held = held - sell_qty
    amount = np.where(live & (change > 0), change, 0)
    buy_qty, cost = _buy_cost(amount, prices, fee_ppm, slip_ppm)
    short = cost.sum(axis=1) > cash
    if short.any():
        rows = np.flatnonzero(short)
        buy_qty[rows] = _scaled(amount[rows], prices, cash[rows], fee_ppm, slip_ppm)
    paid = _ceil_div(buy_qty * prices, MICRO)
    paid += _ceil_div(paid * fee_ppm, MICRO) + _ceil_div(paid * slip_ppm, MICRO)
    cash = cash - paid.sum(axis=1)
    return Books(cash, held + buy_qty)


def _scaled(amount: Ints, prices: Ints, cash: Ints, fee_ppm: int, slip_ppm: int) -> Ints:
    """Return the buy quantities of rows whose buys the cash cannot pay (W-EXE-6).

    The same loop as `rebalance`: scale every amount by budget / wanted (down),
    and shave the budget by any overshoot until the buys fit.
    """
    wanted = (
        amount + _ceil_div(amount * fee_ppm, MICRO) + _ceil_div(amount * slip_ppm, MICRO)
    ).sum(axis=1)
    budget = cash.copy()
    quantity = np.zeros_like(amount)
    pending = np.ones(len(cash), dtype=np.bool_)
    while pending.any():
        rows = np.flatnonzero(pending)
        exact = amount[rows].astype(object) * budget[rows].astype(object)[:, None]
        shrunk = (exact // wanted[rows].astype(object)[:, None]).astype(np.int64)
        q, cost = _buy_cost(shrunk, prices, fee_ppm, slip_ppm)
        total = cost.sum(axis=1)
        fits = total <= cash[rows]
        quantity[rows[fits]] = q[fits]
        over = rows[~fits]
        budget[over] -= total[~fits] - cash[over]
        pending[rows[fits]] = False
    return quantity
