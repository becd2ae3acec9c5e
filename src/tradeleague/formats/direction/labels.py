"""The round's "market went up / down" label, from the broker's verdicts (SPEC D-TRD-5).

The arena never compares its own quotes: a winning call or a losing put means
the price rose, a winning put or a losing call that it fell, a draw that it
stood still. Verdicts that disagree are reported as such, never resolved.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from tradeleague.sim import Direction, OptionResult

__all__ = ["MarketLabel", "market_label"]


class MarketLabel(enum.StrEnum):
    """What the broker's verdicts say the market did in a round."""

    UP = "up"
    DOWN = "down"
    FLAT = "flat"
    NONE = "none"
    """No verdict: nothing settled (a void round)."""
    CONFLICT = "conflict"
    """The verdicts disagree (a broker fault worth reporting)."""


def _one(kind: Direction, outcome: OptionResult) -> MarketLabel:
    if outcome is OptionResult.DRAW:
        return MarketLabel.FLAT
    rose = (outcome is OptionResult.WIN) == (kind is Direction.CALL)
    return MarketLabel.UP if rose else MarketLabel.DOWN


def market_label(verdicts: Iterable[tuple[Direction, OptionResult]]) -> MarketLabel:
    """Return the round's label from ``(call/put, outcome)`` verdicts (D-TRD-5).

    Examples
    --------
    >>> market_label([(Direction.PUT, OptionResult.LOSS), (Direction.CALL, OptionResult.WIN)]).value
    'up'
    """
    labels = {_one(kind, outcome) for kind, outcome in verdicts}
    if not labels:
        return MarketLabel.NONE
    if len(labels) > 1:
        return MarketLabel.CONFLICT
    return labels.pop()
