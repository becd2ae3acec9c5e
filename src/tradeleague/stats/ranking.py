"""Ranked rows first, then the unranked with their reason: one split for every board.

Every format ranks its rows by its own order (the weights league by return,
then drawdown...; the arena by ROI, then hit rate, then balance) and leaves
unranked the rows with too little activity to mean anything (W-RNK-1 for the
weights league; ours for the others: an arena model with no settled trade, a
thesis agent that never held a position, a scenario run with no step). This
module is the one place that splits them: ranks 1, 2, 3... with no shared
ranks among the ranked, in the format's order; then the unranked, in the same
order, each with the reason the format gave (W-RNK-3's shape, for all).

Pure: the format passes its order and its reason as functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Placed", "place"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Placed(Generic[T]):
    """One row in its place: its rank (``None`` when unranked) and why it is unranked."""

    row: T
    rank: int | None
    unranked: str | None


def place(
    rows: Iterable[T], *, order: Callable[[T], Any], unranked: Callable[[T], str | None]
) -> list[Placed[T]]:
    """Return ``rows`` ranked 1, 2, 3... by ``order``, then the unranked in that same order.

    Parameters
    ----------
    rows
        The board's rows, in any order.
    order
        The format's sort key; it must be total (end it with a name or an id), so
        the same rows always give the same board.
    unranked
        The reason a row is not ranked (a reason code), or ``None`` if it is.
    """
    reasons = [(row, unranked(row)) for row in rows]
    ordered = sorted(reasons, key=lambda pair: (pair[1] is not None, order(pair[0])))
    out: list[Placed[T]] = []
    rank = 0
    for row, reason in ordered:
        if reason is None:
            rank += 1
            out.append(Placed(row, rank, None))
        else:
            out.append(Placed(row, None, reason))
    return out
