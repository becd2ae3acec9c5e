"""A scenario board's no-skill null: coin-flip agents stepped in arrays under the run's rules.

**The agent** (``coin-flip``, one per index). It holds each symbol or not
by a coin: before the first step it flips every symbol's coin, and before each
later step it flips each one again with chance ``FLIPS`` / steps (so about
``FLIPS`` times a run, whatever the bar size; every step on a run of at most
``FLIPS`` steps), keeping it otherwise: it picks and times its holdings by
chance, without paying for a fresh guess at every bar. Where the scenario
allows shorts (S-FIL-4) a second coin, flipped with the first, says long or
short; else every holding is long. At bar ``k`` (seeing its closes) it splits
``EXPOSURE_BPS`` of its equity, valued at those closes, equally among its
heads, in whole micro-units at those closes: it never borrows beyond its
equity (it trades the same book under every leverage cap: the cap bounds an
agent, it does not make one take risk) and keeps the rest in cash as a cushion
for the move to the next open and its slippage. It queues the orders that take
each holding to its target: first every ``sell`` and ``cover`` (in symbol
order), then every ``buy`` and ``short`` (in symbol order), so a side that
flips closes before it opens (`coin_flip_orders`, the agent one order at a
time).

**The rules** are the run's own (`tradeleague.formats.scenario.run.step`):
the queue fills in order at the next bar's open moved by the symbol's slippage
(S-FIL-1, S-FIL-2), each order whole or rejected (S-FIL-3), a ``buy`` or
``short`` rejected when it would leave notional above equity x cap (S-FIL-5);
before the fills, an account under notional / (2 x cap) at the last closes is
force-closed at the open and stops there (S-LIQ-1). The final value is the
equity at the last bar's close (S-SCO-1), or the cash a liquidation left.

`simulate_null` runs many agents at once in int64 NumPy arithmetic, with the
same rounding as the engine (a paying side's price and value up, a receiving
side's down, a position valued down, its notional up): each agent ends where
`coin_flip_orders` stepped through `run.step` takes it, to the micro-dollar.
Products of a quantity and a price are split into whole units and a remainder,
so no intermediate passes 2**63 for any account below 2**62 micro-dollars.

**Seeds.** Agent ``i`` of a scenario draws its coins from
``numpy.random.default_rng([null_seed(scenario_id), i])``: the same agent
whatever N, so a board's N agents are the first N of its cloud.
`scenario_null` is the board's null (`tradeleague.stats.null.SeasonNull`):
N the board's runs, a cloud of at least ``CLOUD_AGENTS``, and the luckiest-of-N
figure ST-2 asks for, the best of N averaged over the cloud's seasons of N
(`tradeleague.stats.null.expected_best`).

Pure: no clock, no global random state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final

import numpy as np
import numpy.typing as npt

from tradeleague.formats.scenario.bars import OHLCV, ScenarioBars
from tradeleague.formats.scenario.config import ScenarioConfig
from tradeleague.money import MICRO, Qty, Usd
from tradeleague.sim import Order, Portfolio, Side
from tradeleague.sim.costs import BPS
from tradeleague.sim.errors import SimError
from tradeleague.stats.null import (
    Ints,
    NullCloud,
    NullKind,
    SeasonNull,
    expected_best,
    null_summary,
)

__all__ = [
    "CLOUD_AGENTS",
    "EXPOSURE_BPS",
    "FLIPS",
    "KIND",
    "RULES",
    "agent_directions",
    "coin_flip_orders",
    "null_seed",
    "null_values",
    "scenario_null",
    "simulate_null",
]

KIND: Final = NullKind.COIN_FLIP
"""The no-skill agents behind a scenario board's luckiest-of-N line."""
RULES: Final = "the scenario's rules"
"""What the agents trade under, as the board says it."""
EXPOSURE_BPS: Final = 9_800
"""The share of its equity a coin-flip agent holds across its heads (98%)."""
FLIPS: Final = 20
"""How many times, on average, a coin-flip agent flips each symbol's coin over a run."""
CLOUD_AGENTS: Final = 1_000
"""The fewest agents a scenario board's baseline cloud draws (as a weights board's)."""
CHUNK: Final = 2_048
"""Agents simulated in one pass of the arrays (bounds the memory one pass takes)."""

_LIMIT: Final = float(2**62)
_PRICE_LIMIT: Final = 2**42
"""Prices stay below this (4.4 million dollars a unit): a part of a unit times one fits int64."""
Int8s = npt.NDArray[np.int8]


def null_seed(scenario_id: str) -> int:
    """Return the seed of a scenario's null, derived from the scenario id (below 2**63)."""
    text = f"{scenario_id}/null".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def agent_directions(seed: int, index: int, steps: int, symbols: int, allow_short: bool) -> Int8s:
    """Return agent ``index``'s coins: shape (steps, symbols), +1 long, -1 short, 0 not held.

    At the first step every symbol's coin is flipped; at each later step each
    symbol's is flipped again with chance ``FLIPS / steps`` (at most 1) and
    otherwise kept. A coin says whether to hold the symbol; where shorts are
    allowed a second coin, flipped with it, says long or short.
    """
    rng = np.random.default_rng([seed, index])
    again = rng.random((steps, symbols)) < min(1.0, FLIPS / max(steps, 1))
    heads = rng.integers(0, 2, size=(steps, symbols), dtype=np.int8)
    if allow_short:
        short = rng.integers(0, 2, size=(steps, symbols), dtype=np.int8)
        heads = heads * (1 - 2 * short).astype(np.int8)
    if steps:
        again[0] = True
    # each step holds the coin of the last step at or before it that flipped it
    last = np.maximum.accumulate(np.where(again, np.arange(steps)[:, None], 0), axis=0)
    out: Int8s = heads[last, np.arange(symbols)[None, :]]
    return out


def _target_qty(equity: int, heads: int, close: int) -> int:
    """Return the quantity of one symbol the agent targets: its equal share of the exposure."""
    if equity <= 0 or heads == 0:
        return 0
    return equity * EXPOSURE_BPS // (BPS * heads) * MICRO // close


def coin_flip_orders(
    portfolio: Portfolio,
    closes: Mapping[str, Usd],
    directions: Int8s,
    symbols: tuple[str, ...],
) -> list[Order]:
    """Return the orders the coin-flip agent queues at a bar (the module's agent, one at a time).

    Parameters
    ----------
    portfolio
        The account at the bar (after the fills at its open).
    closes
        The bar's closes: the agent values its equity and sizes at them.
    directions
        Shape (symbols,): this step's coins (`agent_directions`).
    symbols
        The scenario's universe, in order.
    """
    heads = int(np.count_nonzero(directions))
    equity = int(portfolio.equity(closes))
    targets = [
        int(d) * _target_qty(equity, heads, int(closes[s]))
        for s, d in zip(symbols, directions, strict=True)
    ]
    reduce: list[Order] = []
    extend: list[Order] = []
    for symbol, target in zip(symbols, targets, strict=True):
        held = int(portfolio.qty(symbol))
        if held > 0 and target < held:
            reduce.append(Order(symbol, Side.SELL, Qty(held - max(target, 0))))
        elif held < 0 and target > held:
            reduce.append(Order(symbol, Side.COVER, Qty(-held - max(-target, 0))))
        if target > max(held, 0):
            extend.append(Order(symbol, Side.BUY, Qty(target - max(held, 0))))
        elif target < min(held, 0):
            extend.append(Order(symbol, Side.SHORT, Qty(min(held, 0) - target)))
    return reduce + extend


def _times(q: Ints, price: Ints, *, up: bool) -> Ints:
    """Return ``q x price / MICRO`` rounded down (or up), exactly, without forming ``q x price``."""
    whole = q // MICRO
    part = q - whole * MICRO
    rest = -((-part * price) // MICRO) if up else (part * price) // MICRO
    out: Ints = whole * price + rest
    return out


def _per_unit(amount: Ints, price: Ints) -> Ints:
    """Return ``amount x MICRO / price`` rounded down, exactly (a quantity ``amount`` buys)."""
    out: Ints = (amount // price) * MICRO + ((amount % price) * MICRO) // price
    return out


def _check(cash: Ints, value: Ints) -> None:
    worst = max(float(np.abs(cash).max(initial=0)), float(np.abs(value).max(initial=0)))
    if worst * 64 >= _LIMIT:  # 2 x cap x equity, cap at most 10, stays below 2**62
        raise SimError("amounts too large for the array null; step the run instead")


def _prices(bars: ScenarioBars, field: str) -> Ints:
    """Return shape (bars, symbols): one field of every bar, micro-dollars."""
    k = OHLCV.index(field)
    return np.array([bars.values[s][k] for s in bars.symbols], dtype=np.int64).T.copy()


def simulate_null(bars: ScenarioBars, config: ScenarioConfig, directions: Int8s) -> Ints:
    """Step every agent's coins through the bars under the scenario's rules; return final values.

    Parameters
    ----------
    bars
        The scenario's bars (every open and close positive).
    config
        Its rules: cash, leverage cap, shorting, slippage by symbol.
    directions
        Shape (agents, steps, symbols): each agent's coins (`agent_directions`),
        ``steps`` one less than the bars.

    Returns
    -------
    Ints
        Shape (agents,): each agent's final equity in micro-dollars (module doc).

    Raises
    ------
    ValueError
        If the coins do not fit the bars, or a price is not positive.
    SimError
        If an account grows past what int64 arithmetic holds exactly.
    """
    agents, steps, width = directions.shape
    if steps != len(bars) - 1 or width != len(bars.symbols):
        raise ValueError("one row of coins per step (bars - 1) and one column per symbol")
    if tuple(config.symbols) != bars.symbols:
        raise ValueError("the config and the bars name different symbols")
    opens, closes = _prices(bars, "open"), _prices(bars, "close")
    if (opens <= 0).any() or (closes <= 0).any():
        raise ValueError("every open and close must be positive")
    if max(int(opens.max()), int(closes.max())) >= _PRICE_LIMIT:
        raise SimError("prices too large for the array null; step the run instead")
    bps = np.array([config.slippage_bps[s] for s in bars.symbols], dtype=np.int64)
    cap = config.leverage_cap
    cash = np.full(agents, int(config.cash), dtype=np.int64)
    pos = np.zeros((agents, width), dtype=np.int64)
    alive = np.ones(agents, dtype=np.bool_)
    for k in range(steps):
        here, at_open = closes[k], opens[k + 1]
        pay = -((-at_open * (BPS + bps)) // BPS)  # buy, cover: up
        get = np.maximum(1, at_open * (BPS - bps) // BPS)  # sell, short: down, at least 1
        value = _times(pos, here, up=False)
        equity = cash + value.sum(axis=1)
        _check(cash, equity)
        notional = _times(np.abs(pos), here, up=True).sum(axis=1)
        held = (pos != 0).any(axis=1)
        forced = alive & held & (2 * cap * equity < notional)
        if forced.any():
            rows = pos[forced]
            cash[forced] += (
                _times(np.maximum(rows, 0), get, up=False)
                - _times(np.maximum(-rows, 0), pay, up=True)
            ).sum(axis=1)
            pos[forced] = 0
            alive &= ~forced
        trading = alive.copy()
        dirs = directions[:, k, :].astype(np.int64)
        heads = np.count_nonzero(dirs, axis=1)
        budget = np.where(
            (equity > 0) & (heads > 0),
            ((equity // BPS) * EXPOSURE_BPS + (equity % BPS) * EXPOSURE_BPS // BPS)
            // np.maximum(heads, 1),
            0,
        )
        target = dirs * _per_unit(np.broadcast_to(budget[:, None], pos.shape), here)
        target = np.where(trading[:, None], target, pos)
        # every sell and cover first: they reduce exposure, so none is rejected
        sell = np.where((pos > 0) & (target < pos), pos - np.maximum(target, 0), 0)
        cover = np.where((pos < 0) & (target > pos), -pos - np.maximum(-target, 0), 0)
        cash += (_times(sell, get, up=False) - _times(cover, pay, up=True)).sum(axis=1)
        pos = pos - sell + cover
        # then each buy and short in symbol order, rejected if notional would pass equity x cap
        worth = _times(pos, at_open, up=False)
        exposure = _times(np.abs(pos), at_open, up=True)
        for s in range(width):
            before = pos[:, s]
            buy = np.where(
                target[:, s] > np.maximum(before, 0), target[:, s] - np.maximum(before, 0), 0
            )
            short = np.where(
                target[:, s] < np.minimum(before, 0), np.minimum(before, 0) - target[:, s], 0
            )
            ordered = (buy > 0) | (short > 0)
            if not ordered.any():
                continue
            after = before + buy - short
            moved = _times(short, get[s : s + 1], up=False) - _times(buy, pay[s : s + 1], up=True)
            new_cash = cash + moved
            new_worth = _times(after, at_open[s : s + 1], up=False)
            new_exposure = _times(np.abs(after), at_open[s : s + 1], up=True)
            total_worth = worth.sum(axis=1) - worth[:, s] + new_worth
            total_exposure = exposure.sum(axis=1) - exposure[:, s] + new_exposure
            fills = ordered & (total_exposure <= (new_cash + total_worth) * cap)
            cash = np.where(fills, new_cash, cash)
            pos[:, s] = np.where(fills, after, before)
            worth[:, s] = np.where(fills, new_worth, worth[:, s])
            exposure[:, s] = np.where(fills, new_exposure, exposure[:, s])
    final: Ints = cash + _times(pos, closes[-1], up=False).sum(axis=1)
    return final


def null_values(scenario_id: str, bars: ScenarioBars, config: ScenarioConfig, agents: int) -> Ints:
    """Return the final values of agents ``0 .. agents - 1`` of a scenario, in index order."""
    seed = null_seed(scenario_id)
    steps, width = len(bars) - 1, len(bars.symbols)
    out: list[Ints] = []
    for first in range(0, agents, CHUNK):
        block = np.stack(
            [
                agent_directions(seed, i, steps, width, config.allow_short)
                for i in range(first, min(agents, first + CHUNK))
            ]
        )
        out.append(simulate_null(bars, config, block))
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def scenario_null(
    scenario_id: str, bars: ScenarioBars, config: ScenarioConfig, agents: int
) -> SeasonNull | None:
    """Return a board's null with ``agents`` runs; ``None`` with no run or a price not positive.

    The line is agents ``0 .. agents - 1``; the cloud agents ``0 .. max(agents,
    CLOUD_AGENTS) - 1`` (the line's agents first), and the headline the best of
    ``agents`` averaged over the cloud's whole seasons of ``agents`` (ST-2).
    """
    if agents < 1:
        return None
    many = max(agents, CLOUD_AGENTS)
    try:
        cloud_values = null_values(scenario_id, bars, config, many)
    except ValueError:
        return None
    start_cash, steps = int(config.cash), len(bars) - 1
    best, seasons = expected_best(cloud_values, agents, start_cash)
    return SeasonNull(
        kind=KIND,
        seed=null_seed(scenario_id),
        line=null_summary(cloud_values[:agents], start_cash, steps),
        cloud=NullCloud.of(cloud_values, start_cash, steps),
        expected_best=best,
        seasons=seasons,
        rules=RULES,
    )
