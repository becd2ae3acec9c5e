"""The public leaderboard: published runs of one scenario, ranked by a chosen metric (S-SCO-2).

Drawdown and volatility rank lowest first, the others highest first; a run
whose metric is undefined (``None``) ranks after every run that has one. Ties
keep the earlier-published run first, so the order never depends on chance.
A run that took no step has no result to rank: it is listed after the ranked
runs, unranked, with that reason (ours, beside S-SCO-2; ``stats.ranking``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tradeleague.formats.scenario.metrics import ScenarioResults, higher_is_better
from tradeleague.stats.ranking import place

__all__ = ["UNRANKED_TEXT", "Entry", "Ranked", "UnrankedReason", "rank"]


class UnrankedReason(enum.StrEnum):
    """Why a published run is not ranked (ours)."""

    NO_STEP = "no_step"


UNRANKED_TEXT: Mapping[str, str] = {UnrankedReason.NO_STEP: "took no step"}
"""Each reason as a person reads it."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One published run: its id, its owner's account, and its results."""

    run_id: str
    account: str
    results: ScenarioResults


@dataclass(frozen=True, slots=True)
class Ranked:
    """An entry with its 1-based rank (``None``: unranked, and why) and its metric value."""

    rank: int | None
    entry: Entry
    value: float | None
    unranked: UnrankedReason | None = None


def rank(entries: Iterable[Entry], metric: str) -> list[Ranked]:
    """Return ``entries`` ranked by ``metric`` (input order breaks ties).

    Raises
    ------
    ValueError
        For an unknown metric.
    """
    sign = -1.0 if higher_is_better(metric) else 1.0
    keyed = [(i, e, e.results.metric(metric)) for i, e in enumerate(entries)]
    placed = place(
        keyed,
        order=lambda k: (k[2] is None, sign * (k[2] or 0.0), k[0]),
        unranked=lambda k: UnrankedReason.NO_STEP if k[1].results.steps == 0 else None,
    )
    return [
        Ranked(
            p.rank, p.row[1], p.row[2], None if p.unranked is None else UnrankedReason(p.unranked)
        )
        for p in placed
    ]
