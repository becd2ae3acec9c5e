"""The words of a verdict against a baseline, decided in one place (ST-2).

A paired bootstrap (``stats.bootstrap``) says whether a record is told apart
from a baseline; "distinguishable" alone reads as "beat" to most readers, and
an agent that lost 7% can be distinguishable from cash. So the verdict is
decided here from the test's result *and the sign of its mean difference*:

- ``better``: distinguishable, and the mean per-step difference is above zero;
- ``worse``: distinguishable, and it is below zero;
- ``not_distinguishable``: the test cannot tell it from the baseline;
- ``too_few``: too few steps to test (ST-1: the count is shown beside it).

The codes are what JSON carries; `verdict_words` is what a person reads
("better than cash", "worse than buy-and-hold", "not distinguishable from
cash"), the same in the terminal and on the pages.
"""

from __future__ import annotations

import enum

from tradeleague.stats.bootstrap import BootstrapComparison, SharedTest

__all__ = ["VERDICT_NOTE", "Outcome", "outcome", "verdict_words"]

VERDICT_NOTE = (
    "Verdicts against a baseline (cash, buy-and-hold, holding SPY) are told with their "
    "direction: better than it, worse than it, or not distinguishable from it. The test only "
    "says whether an agent's returns differ from the baseline's; a difference can be a loss as "
    "well as a gain, so a distinguishable result is named by the sign of the mean difference "
    "per step, never by a bare yes. With too few steps there is no test, and the board says so."
)
"""Our decision on the verdict words, as every board's methodology page states it."""


class Outcome(enum.StrEnum):
    """What a test against a baseline says, with its direction (ST-2)."""

    BETTER = "better"
    WORSE = "worse"
    NOT_DISTINGUISHABLE = "not_distinguishable"
    TOO_FEW = "too_few"


def outcome(result: BootstrapComparison | SharedTest | None) -> Outcome:
    """Return the verdict of ``result``: its direction when it is distinguishable.

    ``None`` (nothing was tested) is ``too_few``.
    """
    if result is None:
        return Outcome.TOO_FEW
    if not result.distinguishable:
        return Outcome.NOT_DISTINGUISHABLE
    return Outcome.BETTER if result.mean_difference > 0 else Outcome.WORSE


def verdict_words(verdict: Outcome | str | None, baseline: str) -> str:
    """Return the verdict as a person reads it against ``baseline`` ("cash", "holding SPY").

    >>> verdict_words("worse", "cash")
    'worse than cash'
    >>> verdict_words(Outcome.NOT_DISTINGUISHABLE, "buy-and-hold")
    'not distinguishable from buy-and-hold'
    >>> verdict_words(None, "cash")
    'too few steps to test'
    """
    match None if verdict is None else Outcome(verdict):
        case Outcome.BETTER:
            return f"better than {baseline}"
        case Outcome.WORSE:
            return f"worse than {baseline}"
        case Outcome.NOT_DISTINGUISHABLE:
            return f"not distinguishable from {baseline}"
        case _:
            return "too few steps to test"
