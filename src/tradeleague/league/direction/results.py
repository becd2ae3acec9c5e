"""The direction arena's part of ratings (`tradeleague.league.results.ResultsPart`).

A season's agents are its REPORT.json's models, each with its ROI over the
season (from a REPORT.json, or from the store's arena streams as ``report``
builds it). Not calling is cash (ROI 0); the arena's binary calls have no market
benchmark, so its ratings are against cash alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from tradeleague.errors import ConfigError
from tradeleague.league.results import AgentResult, SeasonResults, fraction

if TYPE_CHECKING:
    from tradeleague.store import Store

__all__ = ["RESULTS", "DirectionResults"]


_NOT_MODELS = ("baseline", "scripted")
"""Providers whose ``model`` is a baseline's name or a script's path: rated by name."""


def _model(row: Mapping[str, Any]) -> str | None:
    model = row.get("model")
    if row.get("provider") in _NOT_MODELS or not isinstance(model, str) or not model:
        return None
    return model


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
            agents=tuple(
                AgentResult(str(m["name"]), None, fraction(m["roi"]), _model(m)) for m in models
            ),
        )

    def seasons(self, store: Store) -> list[SeasonResults]:
        """Return every season of every arena stream in ``store``, each as its report gives it.

        A season of a stream other than the default arena's is keyed ``STREAM/SEASON``.
        """
        from tradeleague.formats.direction.board import build_board
        from tradeleague.formats.direction.ledger import fold
        from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
        from tradeleague.formats.direction.publish import report_payload
        from tradeleague.league.direction.hosting import arena_streams

        preset = DirectionPreset()
        out: list[SeasonResults] = []
        for stream in arena_streams(store.streams()):
            ledger = fold(s.event for s in store.events(stream))
            for season_id, view in ledger.seasons.items():
                board = build_board(
                    view, scoring_version=preset.scoring_version, sparkline=preset.sparkline
                )
                found = self.season(report_payload(board))
                key = season_id if stream == FORMAT else f"{stream}/{season_id}"
                out.append(SeasonResults(key, found.cash, None, None, found.agents))
        return out


RESULTS: Final = DirectionResults()
"""The part the ``direction`` format names as ``results``."""
