"""The six skip reasons of the direction arena (SPEC D-SKP-1, C-7).

A skip is not a loss and not a win: it is left out of the hit rate on both
sides (D-SCO-2) and shows in the answer rate. A ``void`` round scores nobody:
it is not counted as due for anyone (ours, see ``tradeleague.stats.binary_scores``).

Beside the six classes of the seed the arena has one code of its own,
``LEAGUE_FAULT`` (ours, C-7): the league failed, not the model (an agent
adapter raised an error instead of answering, say). It is logged as a skip
with the error in its detail, says so in words, and counts like the other
skips outside the model's control (``trade_rejected``, ``unsettled``).
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["LEAGUE_FAULT", "SkipReason"]

LEAGUE_FAULT: Final = "league_fault"
"""The skip code of a turn lost to the league's own failure, not the model's (ours, C-7)."""


class SkipReason(enum.StrEnum):
    """Why a model's round ended without a settled trade."""

    TIMEOUT = "timeout"
    """No answer in the response window (including a provider fault: no answer came)."""
    INVALID = "invalid"
    """No JSON object, no direction, or a value other than ``up``/``down`` (D-ASK-3)."""
    LATE = "late"
    """Answered with fewer than 30 s left before expiry: not placed (D-RND-4)."""
    TRADE_REJECTED = "trade_rejected"
    """The broker refused the trade; its error code is stored."""
    UNSETTLED = "unsettled"
    """No close event within the grace after expiry: voided, not guessed."""
    VOID = "void"
    """No model completed a trade in the round: the round scores nobody."""
