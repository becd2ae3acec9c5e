"""The luckiest of N agents with no skill, for return tables, by simulation (SPEC ST-2).

D-LCK-3 reads a direction-arena leader against the expected best hit rate of
N coin flips, which has a closed form
(:func:`tradeleague.stats.binary_luck.expected_top_hit_rate`). Return tables have no
such form, so the line is simulated: each no-skill agent's step returns are
drawn independently, with replacement, from a *null pool* of step returns;
its season return compounds them; the line is the mean, over simulations, of
the best season return among ``agents`` such agents.

What the null pool is decides what "no skill" means, and the caller states it.
The usual choice is the baseline's own step returns (the benchmark held, its
steps in random order): an agent at the line did no better than the luckiest
of N agents that took the benchmark's risk with no timing skill. The draws are
independent across agents, which overstates how far apart agents that share
one market can drift, so the line is conservative (high).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import SupportsFloat

import numpy as np
import numpy.typing as npt

__all__ = ["LuckiestOfN", "luckiest_of_n"]

_CHUNK_ELEMENTS = 2_000_000
"""Upper bound on simulated step returns held in memory at once."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LuckiestOfN:
    """The simulated luckiest-of-N line and its own Monte Carlo error.

    Attributes
    ----------
    expected_best
        Mean over simulations of the best season return (a fraction of one).
    standard_error
        Monte Carlo standard error of ``expected_best`` (sample std / sqrt(simulations)).
    agents, steps, simulations
        The sizes it was simulated at.
    """

    expected_best: float
    standard_error: float
    agents: int
    steps: int
    simulations: int


def luckiest_of_n(
    null_pool: Sequence[SupportsFloat],
    *,
    agents: int,
    steps: int,
    rng: np.random.Generator,
    simulations: int = 2_000,
) -> LuckiestOfN:
    """Simulate the expected best season return of ``agents`` agents with no skill (ST-2).

    Parameters
    ----------
    null_pool
        Step returns (fractions of one, each above -1) that a no-skill agent's
        steps are drawn from; see the module notes for how to choose it.
    agents
        How many agents the table compares (the N of luckiest-of-N), 1 or more.
    steps
        Steps per agent's season (as many as the real agents had), 1 or more.
    rng
        The seeded generator every draw comes from.
    simulations
        Seasons of N agents simulated, 2 or more.

    Raises
    ------
    ValueError
        For an empty pool, a return at or below -1, or sizes out of range.
    """
    pool = np.asarray([float(r) for r in null_pool], dtype=np.float64)
    if pool.size == 0:
        raise ValueError("the null pool needs at least one step return")
    if not (np.all(np.isfinite(pool)) and np.all(pool > -1.0)):
        raise ValueError("null step returns must be finite and above -1 (a total loss)")
    if agents < 1 or steps < 1:
        raise ValueError(f"agents and steps must be 1 or more, not {agents} and {steps}")
    if simulations < 2:
        raise ValueError(f"simulations must be 2 or more, not {simulations}")
    log_growth = np.log1p(pool)
    per_chunk = max(1, _CHUNK_ELEMENTS // (agents * steps))
    parts: list[npt.NDArray[np.float64]] = []
    left = simulations
    while left > 0:
        count = min(per_chunk, left)
        draws = rng.integers(0, pool.size, size=(count, agents, steps))
        season_log = log_growth[draws].sum(axis=2)
        parts.append(np.expm1(season_log.max(axis=1)))
        left -= count
    best = np.concatenate(parts)
    return LuckiestOfN(
        expected_best=float(best.mean()),
        standard_error=float(best.std(ddof=1)) / math.sqrt(simulations),
        agents=agents,
        steps=steps,
        simulations=simulations,
    )
