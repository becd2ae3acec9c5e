"""The direction arena's scores: ROI, hit rate, answer rate, streak, group rows.

SPEC D-SCO-1..5. Balances are integer micro-dollars read back from the broker
(D-TRD-3); every score is an exact ``Fraction`` (rounded for display by ST-3
with :func:`tradeleague.stats.rounding.percent`). A group row (a provider or a
tier) is the *sum* of its accounts' tallies, then scored like one account: a
portfolio holding all of them, never an average of percentages (D-SCO-5).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "ArenaTally",
    "RoundResult",
    "answer_rate",
    "combine",
    "hit_rate",
    "roi",
    "streak",
]


class RoundResult(enum.Enum):
    """What one round was for one model, as far as scoring is concerned."""

    WIN = "win"
    """The call was right (the broker settled the trade as a win)."""
    LOSS = "loss"
    """The call was wrong (settled as a loss)."""
    DRAW = "draw"
    """Settled as a draw: the stake came back."""
    SKIP = "skip"
    """No trade counted: timeout, invalid, late, trade_rejected, unsettled (D-SKP-1)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArenaTally:
    """One account's (or one group's) counts and money, the inputs of every D score.

    Parameters
    ----------
    balance
        The balance read back from the broker, in micro-dollars.
    baseline
        The season's starting balance, in micro-dollars (50,000 USD per account).
    wins, losses, draws
        Settled trades by result.
    skips
        Rounds the model was due in but no trade counted (void rounds, which
        score nobody, are not counted at all).
    """

    balance: int
    baseline: int
    wins: int = 0
    losses: int = 0
    draws: int = 0
    skips: int = 0

    def __post_init__(self) -> None:
        if self.baseline <= 0:
            raise ValueError(f"a baseline must be positive, not {self.baseline}")
        for name in ("wins", "losses", "draws", "skips"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")

    @property
    def settled(self) -> int:
        """Return the number of settled trades (wins + losses + draws), the ST-1 count."""
        return self.wins + self.losses + self.draws


def roi(tally: ArenaTally) -> Fraction:
    """Return ROI = (balance - baseline) / baseline, the ranking metric (D-SCO-1, D-SCO-5).

    Examples
    --------
    >>> roi(ArenaTally(balance=50_500_000_000, baseline=50_000_000_000))
    Fraction(1, 100)
    """
    return Fraction(tally.balance - tally.baseline, tally.baseline)


def hit_rate(tally: ArenaTally) -> Fraction | None:
    """Return hit rate = wins / (wins + losses); draws and skips excluded (D-SCO-2).

    Returns
    -------
    Fraction or None
        ``None`` when there is no win and no loss yet (the rate is undefined,
        which a board shows as a dash, not as 0%).
    """
    decided = tally.wins + tally.losses
    if decided == 0:
        return None
    return Fraction(tally.wins, decided)


def answer_rate(tally: ArenaTally) -> Fraction | None:
    """Return answer rate = settled trades / rounds due (settled + skips) (D-SCO-2).

    This is published beside the hit rate because skips are excluded from it:
    a model that sat out its hardest rounds shows it here (ours: draws count as
    answered; void rounds are not due).

    Returns
    -------
    Fraction or None
        ``None`` before the model was due in any round.
    """
    due = tally.settled + tally.skips
    if due == 0:
        return None
    return Fraction(tally.settled, due)


def streak(outcomes: Iterable[RoundResult]) -> int:
    """Return the signed current run: +k after k wins in a row, -k after k losses (D-SCO-4).

    A win extends a winning run or starts a new one at +1; a loss extends a
    losing run or starts one at -1; a draw leaves the run unchanged, and so
    does a skip (ours: a skip is not a trade). ``0`` before any win or loss.

    Parameters
    ----------
    outcomes
        The model's rounds, oldest first.
    """
    run = 0
    for outcome in outcomes:
        if outcome is RoundResult.WIN:
            run = run + 1 if run > 0 else 1
        elif outcome is RoundResult.LOSS:
            run = run - 1 if run < 0 else -1
    return run


def combine(tallies: Iterable[ArenaTally]) -> ArenaTally:
    """Return the group row: every field summed over the accounts (D-SCO-5).

    Score the result with :func:`roi` and :func:`hit_rate`: group ROI is
    sum of balances / sum of baselines - 1, and the group hit rate comes from the
    summed wins and losses.

    Raises
    ------
    ValueError
        For an empty group (its ROI would be undefined).
    """
    items = list(tallies)
    if not items:
        raise ValueError("a group needs at least one account")
    return ArenaTally(
        balance=sum(t.balance for t in items),
        baseline=sum(t.baseline for t in items),
        wins=sum(t.wins for t in items),
        losses=sum(t.losses for t in items),
        draws=sum(t.draws for t in items),
        skips=sum(t.skips for t in items),
    )
