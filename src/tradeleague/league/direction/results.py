"""The direction arena's part of ratings (`tradeleague.league.results.ResultsPart`).

A season's agents are its REPORT.json's models, each with its ROI over the
season. Not calling is cash (ROI 0); the arena's binary calls have no market
benchmark, so its ratings are against cash alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from tradeleague.errors import ConfigError
from tradeleague.league.results import AgentResult, SeasonResults, fraction

__all__ = ["RESULTS", "DirectionResults"]


class DirectionResults:
    """Each model's ROI from an arena REPORT.json."""

    def season(self, report: Mapping[str, Any]) -> SeasonResults:
        """Return the season's models, cash's return (0) and no benchmark."""
        models = report.get("models")
        if not isinstance(models, list) or "season" not in report:
            raise ConfigError("the report is not a direction arena season's REPORT.json")
        return SeasonResults(
            season=str(report["season"]),
            cash=Decimal(0),
            benchmark=None,
            benchmark_name=None,
            agents=tuple(AgentResult(str(m["name"]), None, fraction(m["roi"])) for m in models),
        )


RESULTS: Final = DirectionResults()
"""The part the ``direction`` format names as ``results``."""
