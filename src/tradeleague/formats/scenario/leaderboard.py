"""The public leaderboard: published runs of one scenario, ranked by a chosen metric (S-SCO-2).

Drawdown and volatility rank lowest first, the others highest first; a run
whose metric is undefined (``None``) ranks after every run that has one. Ties
keep the earlier-published run first, so the order never depends on chance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tradeleague.formats.scenario.metrics import ScenarioResults, higher_is_better

__all__ = ["Entry", "Ranked", "rank"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One published run: its id, its owner's account, and its results."""

    run_id: str
    account: str
    results: ScenarioResults


@dataclass(frozen=True, slots=True)
class Ranked:
    """An entry with its 1-based rank and the metric value it was ranked by."""

    rank: int
    entry: Entry
    value: float | None


def rank(entries: Iterable[Entry], metric: str) -> list[Ranked]:
    """Return ``entries`` ranked by ``metric`` (input order breaks ties).

    Raises
    ------
    ValueError
        For an unknown metric.
    """
    sign = -1.0 if higher_is_better(metric) else 1.0
    keyed = [(e, e.results.metric(metric)) for e in entries]
    order = sorted(
        range(len(keyed)),
        key=lambda i: (keyed[i][1] is None, sign * (keyed[i][1] or 0.0), i),
    )
    return [Ranked(n + 1, keyed[i][0], keyed[i][1]) for n, i in enumerate(order)]
