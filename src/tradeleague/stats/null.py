"""A no-skill null under the real rules: many random agents through the weights fill rules.

``no_skill_targets`` draws what N no-skill agents answer each round, as
integer basis points (the only weights the validator lets through): a
``coin-flip`` agent flips a coin per symbol and holds the heads in equal
weight, capped at the largest weight a symbol may take (as the coin-flip
baseline does); a ``random-weights`` agent splits 100% by integer draws, some
of it to cash, capped the same way. ``simulate_null`` then trades every agent
through `tradeleague.sim.rebalance_many`, the array form of the event path's
rebalance, at each round's prices, and returns each agent's final value at the
last round's prices, exact in micro-dollars. ``null_summary`` turns the values
into the returns printed: quantiles and the luckiest agent, in percent
rounded to the hundredth, exact halves up (ST-3); ``NullCloud`` keeps the
sorted values for a chart of the distribution (``bins``) and for placing a
real agent's final value against it (``share_below``).

Pure: the draws come from a ``numpy.random.Generator`` made from the seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from tradeleague.sim.rebalance_many import Books, rebalance_many
from tradeleague.sim.rebalancing import WEIGHT_BPS, RebalanceParams
from tradeleague.stats.rounding import round_half_up

__all__ = [
    "CLOUD_BINS",
    "NullCloud",
    "NullKind",
    "NullRound",
    "NullSummary",
    "SeasonNull",
    "expected_best",
    "no_skill_targets",
    "null_summary",
    "simulate_null",
]

Ints = npt.NDArray[np.int64]

MAX_AGENTS = 1_000_000
"""The most agents one null simulates (bounds the memory it takes)."""
CLOUD_BINS = 20
"""Bars of a null's distribution drawn as a chart."""


class NullKind(StrEnum):
    """How a no-skill agent picks its weights."""

    RANDOM_WEIGHTS = "random-weights"
    COIN_FLIP = "coin-flip"


@dataclass(frozen=True, slots=True)
class NullRound:
    """One round every agent trades in: the prices and halts its ``RoundStarted`` recorded.

    Attributes
    ----------
    prices
        Shape (S,): each symbol's price in micro-dollars, in symbol order.
    halted
        Shape (S,): the symbols not traded this round.
    """

    prices: Ints
    halted: npt.NDArray[np.bool_]


def no_skill_targets(
    kind: NullKind, rng: np.random.Generator, agents: int, symbols: int, cap_bps: int
) -> Ints:
    """Return one round's answers of ``agents`` no-skill agents: shape (agents, symbols), bps."""
    if kind is NullKind.COIN_FLIP:
        heads = rng.random((agents, symbols)) < 0.5
        count = heads.sum(axis=1)
        each = np.minimum(WEIGHT_BPS // np.maximum(count, 1), cap_bps)
        out: Ints = np.where(heads, each[:, None], 0).astype(np.int64)
        return out
    draws = rng.integers(0, WEIGHT_BPS, size=(agents, symbols + 1), endpoint=True)
    total = np.maximum(draws.sum(axis=1), 1)
    weights: Ints = np.minimum(draws[:, :symbols] * WEIGHT_BPS // total[:, None], cap_bps)
    return weights.astype(np.int64)


def simulate_null(
    rounds: Sequence[NullRound],
    targets: Sequence[Ints],
    start_cash: int,
    params: RebalanceParams | None = None,
) -> Ints:
    """Trade every agent's ``targets`` round by round; return final values (micro-dollars).

    ``targets[i]`` holds every agent's answer at ``rounds[i]``; the final value is
    each portfolio at the last round's prices, as the event path's last entry.
    """
    if len(rounds) != len(targets) or not rounds:
        raise ValueError("one set of targets per round, and at least one round")
    agents, symbols = targets[0].shape
    books = Books.open(agents, symbols, start_cash)
    for step, wanted in zip(rounds, targets, strict=True):
        books = rebalance_many(books, wanted, step.prices, step.halted, params)
    return books.equity(rounds[-1].prices)


@dataclass(frozen=True, slots=True)
class NullSummary:
    """The distribution of the agents' season returns, in percent (exact, rounded to show).

    Attributes
    ----------
    agents, rounds
        How many agents, over how many rounds.
    quantiles
        ``p5``, ``p50``, ``p95``, ``p99`` of the returns, in percent.
    luckiest
        The best return, in percent.
    """

    agents: int
    rounds: int
    quantiles: dict[str, Decimal]
    luckiest: Decimal

    def to_json(self) -> dict[str, object]:
        """Return the JSON shape printed by ``--json``: percent figures as decimal strings."""
        return {
            "agents": self.agents,
            "rounds": self.rounds,
            "quantiles": {k: str(v) for k, v in self.quantiles.items()},
            "luckiest": str(self.luckiest),
        }


_QUANTILES = (("p5", 5), ("p50", 50), ("p95", 95), ("p99", 99))


def _pct(value: int, start_cash: int) -> Decimal:
    return round_half_up(Fraction(100 * (value - start_cash), start_cash), 2)


def null_summary(values: Ints, start_cash: int, rounds: int) -> NullSummary:
    """Return the quantiles (nearest rank, on exact values) and the luckiest return."""
    ordered = np.sort(values)
    n = len(ordered)
    quantiles = {}
    for name, q in _QUANTILES:
        rank = max(1, -(-q * n // 100))  # nearest rank: ceil(q% of n), at least the first
        quantiles[name] = _pct(int(ordered[rank - 1]), start_cash)
    return NullSummary(n, rounds, quantiles, _pct(int(ordered[-1]), start_cash))


@dataclass(frozen=True, slots=True)
class NullCloud:
    """A null's final values, sorted, with its summary: the distribution a chart draws.

    Attributes
    ----------
    summary
        ``null_summary`` of the values.
    values
        Shape (N,): every agent's final value in micro-dollars, ascending.
    start_cash
        Every agent's starting value, micro-dollars.
    """

    summary: NullSummary
    values: Ints
    start_cash: int

    @classmethod
    def of(cls, values: Ints, start_cash: int, rounds: int) -> NullCloud:
        """Return the cloud of ``simulate_null``'s values."""
        ordered = np.sort(values)
        return cls(null_summary(ordered, start_cash, rounds), ordered, start_cash)

    def bins(self, count: int = CLOUD_BINS) -> list[tuple[Decimal, Decimal, int]]:
        """Return ``count`` equal bins of final value: (low %, high %, agents), low first.

        Bin ``i`` holds the values from ``low + i*width`` up to, not including, the
        next edge (micro-dollars, ``width`` rounded up so the last bin holds the best).
        """
        low, high = int(self.values[0]), int(self.values[-1])
        width = max(1, -(-(high - low + 1) // count))
        counts = np.bincount((self.values - low) // width, minlength=count)
        return [
            (
                _pct(low + i * width, self.start_cash),
                _pct(low + (i + 1) * width, self.start_cash),
                int(counts[i]),
            )
            for i in range(count)
        ]

    def best_p_value(self, value: int, agents: int) -> float:
        """Return the chance that the best of ``agents`` no-skill agents ends at ``value`` or more.

        Each agent's final value is drawn from the cloud's distribution,
        independently: ``P(best < value) = F(value) ** agents`` with ``F`` the
        share of the cloud below ``value`` (ST-2: how often luck alone leads by
        this much).
        """
        if agents < 1:
            raise ValueError(f"the number of agents must be 1 or more, not {agents}")
        below = int(np.searchsorted(self.values, value, side="left")) / len(self.values)
        return float(1.0 - below**agents)

    def share_below(self, value: int) -> Decimal:
        """Return the percent of the null's agents that ended below ``value`` (micro-dollars)."""
        below = int(np.searchsorted(self.values, value, side="left"))
        return round_half_up(Fraction(100 * below, len(self.values)), 2)


def expected_best(values: Ints, agents: int, start_cash: int) -> tuple[Decimal, int]:
    """Return the expected best return of ``agents`` no-skill agents, and the seasons it averages.

    ``values`` are final values in the order the agents were drawn (independent,
    identically drawn agents): they are cut into as many whole seasons of
    ``agents`` as they hold, and the best of each season is averaged, exactly
    (ST-2: the expected best result of N agents with no skill, by simulation).

    Raises
    ------
    ValueError
        If ``values`` hold fewer than ``agents`` values, or ``agents`` < 1.
    """
    seasons = len(values) // agents if agents >= 1 else 0
    if seasons < 1:
        raise ValueError(f"{len(values)} simulated agents hold no season of {agents}")
    best = values[: seasons * agents].reshape(seasons, agents).max(axis=1)
    mean = Fraction(sum(int(b) for b in best), seasons)
    return round_half_up(Fraction(100) * (mean - start_cash) / start_cash, 2), seasons


@dataclass(frozen=True, slots=True, kw_only=True)
class SeasonNull:
    """A board's no-skill null: the luckiest-of-N line and the cloud drawn beside it.

    Attributes
    ----------
    kind, seed
        The agents' kind and the seed both simulations draw from.
    line
        The luckiest of N and the quantiles, N the agents of the board.
    cloud
        At least as many agents, with the same seed: the distribution drawn.
    expected_best, seasons
        The best return of N agents averaged over the cloud's ``seasons`` whole
        seasons of N (`expected_best`): the line's headline figure (ST-2).
    rules
        What the agents traded under, as a board says it (a weights league's
        rules, or a scenario's).
    """

    kind: NullKind
    seed: int
    line: NullSummary
    cloud: NullCloud
    expected_best: Decimal
    seasons: int
    rules: str = "the league's rules"

    def cloud_payload(self, marks: Iterable[tuple[str, str, Decimal, int]]) -> dict[str, Any]:
        """Return the cloud's distribution with each board entry placed in it, JSON-safe.

        ``marks`` are the board's entries: (id, name, return in percent, final
        value in micro-dollars); each is drawn on the cloud and told the share of
        no-skill agents that ended below it.
        """
        cloud = self.cloud
        summary = cloud.summary
        return {
            "kind": self.kind.value,
            "seed": self.seed,
            "agents": summary.agents,
            "rounds": summary.rounds,
            "quantiles": {k: str(v) for k, v in summary.quantiles.items()},
            "luckiest": str(summary.luckiest),
            "bins": [{"low": str(lo), "high": str(hi), "agents": n} for lo, hi, n in cloud.bins()],
            "marks": [
                {
                    "agent": agent,
                    "name": name,
                    "season_return": str(returned),
                    "below": str(cloud.share_below(value)),
                }
                for agent, name, returned, value in marks
            ],
        }
