"""The weights league's part of ratings (`tradeleague.league.results.ResultsPart`).

A season's agents are its REPORT.json's, each with its season return. Cash
earns nothing in the league (its baseline holds cash: return 0), and the
benchmark is the table's (``significance.<division>.benchmark``, SPY), its
return from its price at the season's first round to its price at the last.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from tradeleague.errors import ConfigError
from tradeleague.league.results import AgentResult, SeasonResults, fraction, report_marks

if TYPE_CHECKING:
    from tradeleague.store import Store

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


def _first_round(report: Mapping[str, Any]) -> date | None:
    """Return the day of the report's first round (the season's first day), if any."""
    rounds = report.get("rounds")
    if not isinstance(rounds, list) or not rounds or not isinstance(rounds[0], dict):
        return None
    try:
        return date.fromisoformat(str(rounds[0].get("time", ""))[:10])
    except ValueError:
        return None


def _status(spec: str, first: date | None) -> str | None:
    """Return the agent's training-cutoff status in a season starting on ``first``."""
    from tradeleague.agents.cutoff import training_cutoff

    mark = None if first is None else training_cutoff(spec, first)
    return None if mark is None else str(mark["status"])


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
                AgentResult(
                    str(a["name"]),
                    a.get("spec"),
                    fraction(a["season_return"]),
                    None,
                    *report_marks(a),
                )
                for a in agents
            ),
            start=_first_round(report),
        )

    def seasons(self, store: Store) -> list[SeasonResults]:
        """Return every weights season in ``store``, as its report would give it (in stream order).

        Read from the season's state (its tables and rounds), without the
        report's significance tests.
        """
        from tradeleague.events import weights as wev
        from tradeleague.formats.weights import Division
        from tradeleague.formats.weights.luck import benchmark_symbol
        from tradeleague.league.weights.state import SeasonState

        out: list[SeasonResults] = []
        for stream in store.streams(wev.STREAM_PREFIX):
            state = SeasonState.from_events(stream, (s.event for s in store.events(stream)))
            if not state.started:
                continue
            rows = {row.agent: row for d in Division for row in state.table(d)}
            name = benchmark_symbol(state.symbols)
            priced = [r.prices[name] for r in state.rounds if name is not None and name in r.prices]
            benchmark = None
            if len(priced) >= 2 and priced[0] > 0:
                benchmark = Decimal(priced[-1]) / Decimal(priced[0]) - 1
            first = None if state.window is None else state.window.start.date()
            agents = tuple(
                AgentResult(
                    a.name,
                    a.spec,
                    rows[a.agent].season_return / 100,
                    cutoff=_status(a.spec, first),
                )
                for a in state.agents.values()
            )
            out.append(SeasonResults(state.season_id, Decimal(0), benchmark, name, agents, first))
        return out


RESULTS: Final = WeightsResults()
"""The part the ``weights`` format names as ``results``."""
