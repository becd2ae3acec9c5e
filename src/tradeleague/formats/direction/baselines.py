"""The arena's rule-based baselines: always up, always down, momentum, seeded coin flip.

Each decides from what every model is shown (the round's candles and expiry)
and answers in the arena's JSON, so its answer is parsed and placed by the same
code as a model's (C-2, C-6). Pure: the coin flip's draw is a hash of its seed
and the round's expiry, never global random state, so a replay repeats it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from tradeleague.errors import ConfigError
from tradeleague.formats.direction.candle import Candle

__all__ = ["BASELINE_NAMES", "DirectionFacts", "direction_baseline"]

BASELINE_NAMES = ("coin_flip", "down", "momentum", "up")
"""The names a ``baseline:`` spec may use in the arena."""


class DirectionFacts(Protocol):
    """What a baseline reads of the round: the candles shown and the expiry."""

    @property
    def candles(self) -> Sequence[Candle]:
        """Return the one-minute candles every model sees, oldest first."""
        ...

    @property
    def expiry(self) -> datetime:
        """Return the round's expiry instant."""
        ...


def _momentum(view: DirectionFacts) -> str:
    candles = view.candles
    if len(candles) < 6:
        return "up"
    return "down" if candles[-1].close < candles[-6].close else "up"


def _coin(seed: int) -> Callable[[DirectionFacts], str]:
    def flip(view: DirectionFacts) -> str:
        digest = hashlib.sha256(f"{seed}/{view.expiry.isoformat()}".encode()).digest()
        return "up" if digest[0] & 1 else "down"

    return flip


_REASONS = {
    "up": "Always up.",
    "down": "Always down.",
    "momentum": "The last five minutes moved this way; follow them.",
    "coin_flip": "A seeded coin flip.",
}


def direction_baseline(
    name: str, *, seed: int = 0
) -> tuple[Callable[[DirectionFacts], str], Callable[[str | None], str]]:
    """Return ``(decide, render)`` of the arena baseline ``name`` (``-`` or ``_`` alike).

    Raises
    ------
    ConfigError
        For an unknown name; the message lists the valid ones.
    """
    key = name.replace("-", "_")
    if key not in BASELINE_NAMES:
        raise ConfigError(f"no direction baseline {name!r}; valid: {', '.join(BASELINE_NAMES)}")
    fixed = key if key in ("up", "down") else None
    decide: Callable[[DirectionFacts], str]
    if key == "momentum":
        decide = _momentum
    elif key == "coin_flip":
        decide = _coin(seed)
    else:

        def decide(view: DirectionFacts) -> str:
            return fixed or "up"

    def render(direction: str | None) -> str:
        return json.dumps({"direction": direction, "rationale": _REASONS[key]})

    return decide, render
