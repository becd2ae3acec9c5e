"""The baselines in the thesis league, answering as text like any model (SPEC T-AGT-1, C-6).

``cash`` never trades (an empty decision list). ``buy_and_hold`` buys, at its
first cycle, the screened assets (5 crypto, 5 stocks when the US market is
open) at 10% of equity each: the T rules (at least 10% a position, at most 10
positions) make an equal-weight purchase of the whole universe impossible, so
ours holds the first screen (methodology page). ``coin_flip`` each cycle closes
what it holds from an earlier cycle, or else opens the first screened crypto
long or short by a seeded coin. Their invalidation prices are far from the
market (a tenth of the price for a long, ten times it for a short) except the
coin's, at 10%.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from tradeleague.errors import ConfigError

__all__ = ["BASELINES", "ThesisView", "coin_heads", "make_baseline", "render"]

BASELINES = ("cash", "buy-and-hold", "coin-flip")
"""The baselines' spec names (``buy_and_hold`` and ``coin_flip`` are read as the same)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ThesisView:
    """The structured facts of a prompt, for rule-based agents (never more than the prompt says).

    Attributes
    ----------
    index
        The cycle's number.
    first
        Whether this is the agent's first cycle.
    screened
        Screened names, crypto first, best first.
    crypto
        Which screened names are crypto.
    prices
        Name -> price as a decimal string.
    positions
        Name -> signed quantity as a decimal string.
    stocks_open
        Whether stocks trade now.
    """

    index: int
    first: bool
    screened: Sequence[str]
    crypto: frozenset[str]
    prices: Mapping[str, str]
    positions: Mapping[str, str]
    stocks_open: bool


Decision = list[dict[str, object]]


def render(decisions: Decision | None) -> str:
    """Return a decision list as a schema-valid answer (T-ACT-2)."""
    return json.dumps(
        {
            "reasoning": "A fixed rule decides. It has no view of the market.",
            "market_context": {"overall_sentiment": "neutral", "key_factors": ["baseline rule"]},
            "decisions": decisions or [],
        },
        sort_keys=True,
    )


def _open(name: str, price: str, long: bool, far: bool) -> dict[str, object]:
    p = Decimal(price)
    level = (
        (p / 10 if long else p * 10)
        if far
        else (p * Decimal("0.9") if long else p * Decimal("1.1"))
    )
    return {
        "action": "open_long" if long else "open_short",
        "symbol": name,
        "percent_of_equity": 10,
        "invalidation_price": str(level.quantize(Decimal("0.000001"))),
        "confidence": "1.00",
        "thesis": "Baseline rule.",
        "invalidation": "Baseline level.",
    }


def _cash(view: ThesisView) -> Decision | None:
    return []


def _buy_and_hold(view: ThesisView) -> Decision | None:
    if not view.first:
        return []
    names = [n for n in view.screened if n in view.crypto or view.stocks_open]
    return [_open(n, view.prices[n], True, far=True) for n in names[:10] if n in view.prices]


def coin_heads(seed: int, index: int) -> bool:
    """Return the coin of the coin-flip baseline seeded ``seed`` at cycle ``index``: long if heads.

    The no-skill null's agents draw the same coin (``formats/thesis/null.py``).
    """
    return bool(np.random.default_rng([seed, index]).integers(0, 2))


def _coin(seed: int) -> Callable[[ThesisView], Decision | None]:
    def decide(view: ThesisView) -> Decision | None:
        if view.positions:
            return [{"action": "close", "symbol": n} for n in sorted(view.positions)]
        names = [n for n in view.screened if n in view.crypto and n in view.prices]
        if not names:
            return []
        return [_open(names[0], view.prices[names[0]], coin_heads(seed, view.index), far=False)]

    return decide


def make_baseline(
    name: str, seed: int = 0
) -> tuple[Callable[[Any], Decision | None], Callable[[Decision | None], str]]:
    """Return the ``(decide, render)`` pair of baseline ``name``.

    Raises
    ------
    ConfigError
        For a name that is not a thesis baseline.
    """
    rules: dict[str, Callable[[ThesisView], Decision | None]] = {
        "cash": _cash,
        "buy-and-hold": _buy_and_hold,
        "coin-flip": _coin(seed),
    }
    name = name.replace("_", "-")
    if name not in rules:
        raise ConfigError(
            f"unknown baseline {name!r}; the thesis league has {', '.join(BASELINES)}"
        )
    return rules[name], render
