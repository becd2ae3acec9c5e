"""The weights league's part of ratings (`tradeleague.league.results.ResultsPart`).

A season's agents are its REPORT.json's, each with its season return. Cash
earns nothing in the league (its baseline holds cash: return 0), and the
benchmark is the table's (``significance.<division>.benchmark``, SPY), its
return from its price at the season's first round to its price at the last.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from tradeleague.errors import ConfigError
from tradeleague.league.results import AgentResult, SeasonResults, fraction

__all__ = ["RESULTS", "WeightsResults"]


def _benchmark(report: Mapping[str, Any]) -> tuple[str | None, Decimal | None]:
    tables = report.get("significance") or {}
    names = sorted(
        {str(t["benchmark"]) for t in tables.values() if isinstance(t, dict) and t.get("benchmark")}
    )
    rounds = report.get("rounds") or []
    if len(names) != 1 or len(rounds) < 2:
        return (names[0] if len(names) == 1 else None), None
    name = str(names[0])
    first, last = rounds[0]["prices"].get(name), rounds[-1]["prices"].get(name)
    if first is None or last is None or Decimal(str(first)) <= 0:
        return name, None
    return name, Decimal(str(last)) / Decimal(str(first)) - 1


class WeightsResults:
    """Each agent's season return from a weights REPORT.json."""

    def season(self, report: Mapping[str, Any]) -> SeasonResults:
        """Return the season's agents, cash's return (0) and the benchmark's."""
        agents = report.get("agents")
        if not isinstance(agents, list) or "season" not in report:
            raise ConfigError("the report is not a weights season's REPORT.json")
        name, benchmark = _benchmark(report)
        return SeasonResults(
            season=str(report["season"]),
            cash=Decimal(0),
            benchmark=benchmark,
            benchmark_name=name,
            agents=tuple(
                AgentResult(str(a["name"]), a.get("spec"), fraction(a["season_return"]))
                for a in agents
            ),
        )


RESULTS: Final = WeightsResults()
"""The part the ``weights`` format names as ``results``."""
