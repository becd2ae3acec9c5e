"""Rule-based baseline agents that answer with target weights.

Each baseline is a pure function of what it is shown (``WeightsView``) and, for
the coin flip, an injected seeded generator: the same view and seed always give
the same answer. Weights are integer basis points (10,000 = 100%). A baseline
answers ``None`` to keep its portfolio as it is.
"""

from __future__ import annotations

import random as _random_module
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Protocol

from tradeleague.money import Qty, Usd

__all__ = [
    "BASELINES",
    "BuyAndHold",
    "CashAgent",
    "CoinFlip",
    "EqualWeight",
    "Momentum",
    "WeightsAgent",
    "WeightsView",
    "make_baseline",
]

FULL = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightsView:
    """What a weights-answering agent is shown at its turn (all prices exact)."""

    time: datetime
    symbols: tuple[str, ...]
    prices: Mapping[str, Usd]
    history: Mapping[str, Sequence[Usd]]
    """Observable closes per symbol, oldest first, the latest last (no look-ahead)."""
    cash: Usd
    holdings: Mapping[str, Qty] = field(default_factory=dict)
    benchmark: str | None = None
    max_weight_bps: int = FULL
    """The largest weight the format accepts for one symbol."""


class WeightsAgent(Protocol):
    """An agent that answers a turn with target weights (or ``None``: no change)."""

    name: str

    def decide(self, view: WeightsView) -> dict[str, int] | None:
        """Return target weights in basis points, or ``None`` to keep the portfolio."""
        ...


def _spread(symbols: Sequence[str], cap: int) -> dict[str, int]:
    """Split 100% evenly over ``symbols`` (each at most ``cap``), rounding down."""
    if not symbols:
        return {}
    each = min(FULL // len(symbols), cap)
    return {s: each for s in sorted(symbols)}


@dataclass(slots=True)
class CashAgent:
    """Hold cash and never trade: the zero line every table is read against."""

    name: str = "cash"

    def decide(self, view: WeightsView) -> dict[str, int] | None:
        """Return empty targets: everything in cash."""
        return {}


@dataclass(slots=True)
class BuyAndHold:
    """Buy the benchmark (as much as the format allows) once, then never trade."""

    name: str = "buy-and-hold"

    def decide(self, view: WeightsView) -> dict[str, int] | None:
        """Buy at the first turn, keep the holding afterwards."""
        if view.holdings:
            return None
        symbol = view.benchmark or view.symbols[0]
        return {symbol: min(FULL, view.max_weight_bps)}


@dataclass(slots=True)
class EqualWeight:
    """Hold every symbol in equal weight, rebalanced at each turn."""

    name: str = "equal-weight"

    def decide(self, view: WeightsView) -> dict[str, int] | None:
        """Spread the portfolio evenly over the universe."""
        return _spread(view.symbols, view.max_weight_bps)


@dataclass(slots=True)
class Momentum:
    """Hold, in equal weight, the ``top`` symbols with the best positive return over ``lookback``.

    A symbol with fewer than ``lookback + 1`` observed closes is not eligible.
    """

    lookback: int = 20
    top: int = 3
    name: str = "momentum"

    def decide(self, view: WeightsView) -> dict[str, int] | None:
        """Rank by trailing return (exact fractions), ties by symbol; keep positive ones."""
        scored: list[tuple[int, int, str]] = []
        for symbol in view.symbols:
            closes = view.history.get(symbol, ())
            if len(closes) <= self.lookback:
                continue
            then, now = closes[-1 - self.lookback], closes[-1]
            if now > then:
                scored.append((now, then, symbol))
        scored.sort(key=lambda t: (-Fraction(t[0], t[1]), t[2]))
        return _spread([s for _, _, s in scored[: self.top]], view.max_weight_bps)


@dataclass(slots=True)
class CoinFlip:
    """Flip a seeded coin per symbol each turn; hold the heads in equal weight."""

    seed: int = 0
    name: str = "coin-flip"
    rng: _random_module.Random = field(init=False)
    turns: int = field(default=0, init=False)
    """Turns decided so far, skipped ones (``resume``) included."""
    _owed: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = _random_module.Random(self.seed)  # noqa: S311 - a baseline, not crypto

    def resume(self, turns: int) -> None:
        """Continue after ``turns`` past turns: their draws are skipped at the next turn.

        Each turn draws once per symbol of the universe, which is fixed for a
        season, so the draws owed are made (and dropped) once the next turn
        shows the universe; the answers that follow are an uninterrupted run's.
        """
        self._owed = max(self._owed, turns - self.turns)

    def decide(self, view: WeightsView) -> dict[str, int] | None:
        """Return equal weights over the symbols whose coin came up heads."""
        for _ in range(self._owed * len(view.symbols)):
            self.rng.random()
        self.turns += self._owed + 1
        self._owed = 0
        heads = [s for s in sorted(view.symbols) if self.rng.random() < 0.5]
        return _spread(heads, view.max_weight_bps)


BASELINES: Mapping[str, Callable[[], WeightsAgent]] = {
    "cash": CashAgent,
    "buy-and-hold": BuyAndHold,
    "equal-weight": EqualWeight,
    "momentum": Momentum,
    "coin-flip": CoinFlip,
}
"""The built-in baselines by name (``baseline:NAME`` in agent specs)."""


def make_baseline(name: str, *, seed: int = 0) -> WeightsAgent:
    """Return a fresh baseline by name; an unknown name lists the valid ones."""
    if name == "coin-flip":
        return CoinFlip(seed=seed)
    try:
        factory = BASELINES[name]
    except KeyError:
        valid = ", ".join(sorted(BASELINES))
        raise ValueError(f"unknown baseline {name!r}; choose one of: {valid}") from None
    return factory()
