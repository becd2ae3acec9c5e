"""The thesis league's part of ratings (`tradeleague.league.results.ResultsPart`).

A season's agents are its REPORT.json's, each with its return and its spec.
Cash earns nothing (return 0); the benchmark is SPY, its return from its
price at the first cycle that has one to its price at the last.
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

__all__ = ["RESULTS", "ThesisResults"]

_BENCHMARK = "SPY"


def _benchmark(report: Mapping[str, Any]) -> Decimal | None:
    prices = [
        Decimal(str(c["prices"][_BENCHMARK]))
        for c in report.get("cycles") or []
        if isinstance(c.get("prices"), dict) and c["prices"].get(_BENCHMARK) is not None
    ]
    if len(prices) < 2 or prices[0] <= 0:
        return None
    return prices[-1] / prices[0] - 1


def _first_day(report: Mapping[str, Any]) -> date | None:
    try:
        return date.fromisoformat(str(report.get("start", ""))[:10])
    except ValueError:
        return None


class ThesisResults:
    """Each agent's season return from a thesis REPORT.json."""

    def season(self, report: Mapping[str, Any]) -> SeasonResults:
        """Return the season's agents, cash's return (0) and SPY's."""
        agents = report.get("agents")
        if not isinstance(agents, list) or report.get("format") != "thesis":
            raise ConfigError("the report is not a thesis season's REPORT.json")
        return SeasonResults(
            season=str(report["season"]),
            cash=Decimal(0),
            benchmark=_benchmark(report),
            benchmark_name=_BENCHMARK,
            agents=tuple(
                AgentResult(
                    str(a["name"]),
                    a.get("spec"),
                    fraction(a["metrics"]["return"]),
                    None,
                    *report_marks(a),
                )
                for a in agents
                if a.get("metrics", {}).get("return") is not None
            ),
            start=_first_day(report),
        )

    def seasons(self, store: Store) -> list[SeasonResults]:
        """Return every thesis season in ``store``, as its report gives it (in stream order)."""
        from tradeleague.events import thesis as tev
        from tradeleague.events.streams import stream_prefix
        from tradeleague.formats.thesis.preset import ThesisPreset
        from tradeleague.league.thesis.report import build_report
        from tradeleague.league.thesis.state import SeasonState

        out: list[SeasonResults] = []
        for stream in store.streams(stream_prefix(tev.FORMAT)):
            state = SeasonState.from_events((s.event for s in store.events(stream)), ThesisPreset())
            if state.started:
                out.append(self.season(build_report(state, None)))
        return out


RESULTS: Final = ThesisResults()
"""The part the ``thesis`` format names as ``results``."""
