"""The scenario benchmark's public read models, for the JSON API and the pages alike.

One function per figure: the leaderboard route and the leaderboard page both
call `leaderboard_payload`, so a page can never disagree with ``/api/v1``.
"""

from __future__ import annotations

from typing import Any

from tradeleague.api.service import ScenarioService
from tradeleague.formats.scenario import METRICS, Entry, rank

__all__ = ["leaderboard_payload", "scenarios_payload"]


def leaderboard_payload(service: ScenarioService, scenario_id: str, metric: str) -> dict[str, Any]:
    """Return a scenario's published runs ranked by ``metric`` (S-SCO-2), steps per row (ST-1).

    Raises
    ------
    ServiceError
        404 when the scenario does not exist.
    """
    found = service.scenario(scenario_id)
    entries = [Entry(r, a, res) for r, a, res in service.published(scenario_id)]
    return {
        "scenario": found.view(),
        "metric": metric,
        "entries": [
            {
                "rank": e.rank,
                "run_id": e.entry.run_id,
                "account": e.entry.account,
                "value": e.value,
                "liquidated": e.entry.results.liquidated,
                "steps": e.entry.results.steps,
            }
            for e in rank(entries, metric)
        ],
    }


def scenarios_payload(service: ScenarioService) -> dict[str, Any]:
    """Return the scenarios with how many published runs each has."""
    counts = service.published_counts()
    return {
        "metrics": list(METRICS),
        "scenarios": [
            {**s, "published_runs": counts.get(str(s["id"]), 0)} for s in service.scenarios()
        ],
    }
