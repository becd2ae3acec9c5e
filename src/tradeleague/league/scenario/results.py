"""The scenario benchmark's part of ratings (`tradeleague.league.results.ResultsPart`).

A season is a scenario version; its agents are its published runs, each named
by the API account that ran it (a scenario run names no model), with its
exact total return. Cash earns nothing (return 0); the benchmark is the
scenario's (SPY when its universe holds it, else its first symbol,
`tradeleague.formats.weights.luck.benchmark_symbol`, as its leaderboard's
buy-and-hold), from its first close to its last.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Final

from tradeleague.league.results import AgentResult, SeasonResults

if TYPE_CHECKING:
    from tradeleague.store import Store

__all__ = ["RESULTS", "ScenarioResultsPart"]


def _decimal(exact: Fraction) -> Decimal:
    return Decimal(exact.numerator) / Decimal(exact.denominator)


class ScenarioResultsPart:
    """Each published run's total return, per scenario version in a store."""

    def seasons(self, store: Store) -> list[SeasonResults]:
        """Return every scenario version with a published run, in the catalogue's order."""
        from tradeleague.clock import WallClock
        from tradeleague.formats.weights.luck import benchmark_symbol
        from tradeleague.league.scenario.service import ScenarioService

        service = ScenarioService(store, WallClock())  # reads only: the clock is never asked
        out: list[SeasonResults] = []
        for view in service.scenarios():
            scenario = service.scenario(str(view["id"]))
            runs = service.published(scenario.id)
            if not runs:
                continue
            bars = scenario.bars
            name = benchmark_symbol(list(scenario.config.symbols))
            benchmark = None
            if name is not None and len(bars) >= 2:
                first, last = int(bars.closes(0)[name]), int(bars.closes(len(bars) - 1)[name])
                if first > 0:
                    benchmark = Decimal(last) / Decimal(first) - 1
            agents = tuple(
                AgentResult(account, None, _decimal(results.total_return))
                for _, account, results in runs
            )
            out.append(SeasonResults(scenario.id, Decimal(0), benchmark, name, agents))
        return out


RESULTS: Final = ScenarioResultsPart()
"""The part the ``scenario`` format names as ``results``."""
