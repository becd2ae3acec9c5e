"""A no-skill null under the thesis rules: N coin-flip baselines at once, in arrays (ST-2).

Each agent is the coin-flip baseline (``baselines.py``) with its own seed: at
every cycle it closes what it holds, or else opens the first screened crypto
long or short by its coin, at 10% of equity, its invalidation level 10% away.
``simulate_null`` plays N of them over a season's cycles with the event path's
integer rules, vectorised over the agents with NumPy: the monitor's checks
between two cycles (T-MON-1: a long closed at the first check whose price is
at or below its level, a short at or above, whole, with the fee), then each
cycle's decision with the validation the event path applies to it (the
invalidation side, the no-reopen rule, the size rounding to zero, no
negative cash, gross exposure at most equity: a rejected open leaves the book
as it was, as its correction round does, the coin giving the same answer
again), sizing (the percent of equity includes the fee, less 100
micro-dollars; the quantity rounds down to a millionth) and fills (value
rounded against the trader, the 0.1% fee rounded up). Money is kept in
Python integers inside object arrays (exact, no overflow); prices and levels
in int64. Each agent's final value is its equity at the last cycle's prices,
the last point of the board's equity path, to the micro-dollar.

The coins are the one per-agent rule: agent ``i`` draws the baseline's coin
(``coin_heads``) from its own seed at each cycle. Pure: nothing is read here
but the arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tradeleague.formats.thesis.baselines import coin_heads
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.money import MICRO

__all__ = ["NullCycle", "coin_sides", "simulate_null"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Objs = npt.NDArray[np.object_]

_SLACK = 100
"""Micro-dollars kept back from an open's dollars, as ``execution._size`` keeps them."""
_PCT = 10
"""The coin's size, percent of equity (``baselines._open``)."""
_MAX_LEVEL = 10**12 * MICRO
"""The largest invalidation price an answer may carry (``answer._item``), micro-dollars."""
_NEVER = -(10**9)
"""The cycle of a close that never happened (far before any no-reopen window)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NullCycle:
    """One cycle as the no-skill agents meet it; symbols are the null's, by column.

    Attributes
    ----------
    index
        The cycle's number in the season (the no-reopen rule counts in these).
    prices
        Shape (S,): each symbol's price at the cycle's instant, micro-dollars; 0 for none.
    first
        The column of the first screened crypto with a price (the coin's pick), -1 for none.
    eligible
        Shape (S,): whether each symbol may be opened at the cycle.
    checks
        Shape (C, S): each symbol's price at every monitor check after the cycle before,
        up to and including this cycle's instant, in time order; 0 where it has none.
    """

    index: int
    prices: Ints
    first: int
    eligible: Bools
    checks: Ints


def coin_sides(seeds: Sequence[int], indices: Sequence[int]) -> Bools:
    """Return shape (cycles, agents): each agent's coin at each cycle, True for long."""
    return np.array([[coin_heads(s, i) for s in seeds] for i in indices], dtype=np.bool_)


def _floor_div(num: Objs, den: int | Objs) -> Objs:
    out: Objs = num // den
    return out


def _ceil_div(num: Objs, den: int | Objs) -> Objs:
    out: Objs = -((-num) // den)
    return out


def _close(cash: Objs, qty: Objs, price: Objs, mask: Bools, fee_ppm: int) -> tuple[Objs, Objs]:
    """Close every masked position whole at ``price``: sell a long, cover a short, with the fee."""
    amount = np.abs(qty) * price
    long = qty > 0
    value = np.where(long, _floor_div(amount, MICRO), _ceil_div(amount, MICRO))
    fee = _ceil_div(value * fee_ppm, MICRO)
    delta = np.where(long, value - fee, -(value + fee))
    return np.where(mask, cash + delta, cash), np.where(mask, 0, qty)


def simulate_null(
    cycles: Sequence[NullCycle], sides: Bools, preset: ThesisPreset
) -> npt.NDArray[np.int64]:
    """Play the coin agents over ``cycles``; return each one's equity at the last cycle.

    Parameters
    ----------
    cycles
        The season's cycles in order, every one over the same symbols.
    sides
        Shape (len(cycles), N): each agent's coin at each cycle, True for long.
    preset
        The fee, the bounds and the starting cash.

    Returns
    -------
    numpy.ndarray
        Shape (N,): final values in micro-dollars, in agent order.

    Raises
    ------
    ValueError
        With no cycle, a coin shape that does not fit, or a held symbol without a
        price at a cycle (the event path cannot value that book either).
    """
    if not cycles or sides.ndim != 2 or sides.shape[0] != len(cycles):
        raise ValueError("one row of coins per cycle, and at least one cycle")
    agents, symbols = sides.shape[1], len(cycles[0].prices)
    rows = np.arange(agents)
    fee = preset.fee_ppm
    cash: Objs = np.full(agents, int(preset.start_cash), dtype=object)
    qty: Objs = np.zeros(agents, dtype=object)  # signed micro-units of the one held symbol
    held = np.zeros(agents, dtype=np.int64)  # its column while qty != 0
    level = np.zeros(agents, dtype=np.int64)
    closed_dir = np.zeros((agents, symbols), dtype=np.int64)
    closed_at = np.full((agents, symbols), _NEVER, dtype=np.int64)
    previous: int | None = None
    value: Objs = cash
    for step, cycle in enumerate(cycles):
        if previous is not None and len(cycle.checks):
            # T-MON-1: every held position at every check; the first break closes it whole
            holding = qty != 0
            seen = cycle.checks[:, held]  # (C, N)
            long = (qty > 0).astype(np.bool_)
            broken = (seen > 0) & np.where(long, seen <= level, seen >= level) & holding
            hit = broken.any(axis=0)
            at = seen[broken.argmax(axis=0), rows].astype(object)
            cash, qty = _close(cash, qty, at, hit, fee)
            cols = held[hit]
            closed_dir[hit, cols] = np.where(long[hit], 1, -1)
            closed_at[hit, cols] = previous
        prices = cycle.prices
        holding = qty != 0
        if holding.any():
            price_held = prices[held]
            if (price_held[holding] <= 0).any():
                raise ValueError(f"cycle {cycle.index}: a held symbol has no price")
            long = (qty > 0).astype(np.bool_)
            cash, qty = _close(cash, qty, price_held.astype(object), holding, fee)
            cols = held[holding]
            closed_dir[holding, cols] = np.where(long[holding], 1, -1)
            closed_at[holding, cols] = cycle.index
            opening = ~holding
        else:
            opening = np.ones(agents, dtype=np.bool_)
        f = cycle.first
        if f >= 0 and cycle.eligible[f] and prices[f] > 0:
            p = int(prices[f])
            heads = sides[step]
            direction = np.where(heads, 1, -1)
            # the baseline's level: the price times 0.9 or 1.1, to the micro-dollar, half to even
            lv_long, lv_short = _half_even(9 * p, 10), _half_even(11 * p, 10)
            side_ok = np.where(heads, lv_long < p, (lv_short > p) & (lv_short <= _MAX_LEVEL))
            reopen = (closed_dir[:, f] == direction) & (cycle.index - closed_at[:, f] <= 1)
            equity = cash  # nothing is held when the coin opens
            dollars = np.maximum(0, _floor_div(equity * (_PCT * 100), 10_000) - _SLACK)
            size = _floor_div(dollars * MICRO * MICRO, p * (MICRO + fee))
            amount = size * p
            fill = np.where(heads, _ceil_div(amount, MICRO), _floor_div(amount, MICRO))
            cost = _ceil_div(fill * fee, MICRO)
            after = np.where(heads, cash - fill - cost, cash + fill - cost)
            gross = _ceil_div(amount, MICRO)
            worth = after + np.where(heads, _floor_div(amount, MICRO), _floor_div(-amount, MICRO))
            ok = opening & side_ok & ~reopen & (size > 0) & (after >= 0) & (gross <= worth)
            cash = np.where(ok, after, cash)
            qty = np.where(ok, np.where(heads, size, -size), qty)
            held = np.where(ok, f, held)
            level = np.where(ok, np.where(heads, lv_long, lv_short), level).astype(np.int64)
        value = cash + _floor_div(qty * prices[held].astype(object), MICRO)
        previous = cycle.index
    return np.array([int(v) for v in value], dtype=np.int64)


def _half_even(num: int, den: int) -> int:
    """Return ``num / den`` rounded to the nearest integer, a half to the even one."""
    q, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and q % 2):
        return q + 1
    return q
