"""A scenario board's race and story (``league.story``): every published run's equity, the leader.

The race is each run's equity after each step, from the scenario's cash; the
leader is the board's first-ranked run, named by its account, judged by the
board's no-skill null (ST-2): the expected best return of N agents and how
often the best of N ends at the leader's final equity or more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tradeleague.formats.weights.luck import TableLuck
from tradeleague.league.story import Lead, Runner, race_payload, story_text

__all__ = ["scenario_story"]


def scenario_story(
    start: int,
    ranked: Sequence[tuple[int | None, str, float, int]],
    paths: Mapping[str, Sequence[int]],
    luck: TableLuck,
) -> dict[str, Any]:
    """Return the board's ``race`` and ``story`` keys.

    ``ranked`` holds each run in board order: (rank, name, return as a fraction,
    final equity in micro-dollars); ``paths`` each run's equity by name.
    """
    runners = [Runner(name, list(paths[name])) for _, name, _, _ in ranked]
    top = next((r for r in ranked if r[0] == 1), None)
    lead = None
    if top is not None:
        null, n = luck.null, len(ranked)
        lead = Lead(
            name=top[1],
            figure=f"{top[2] * 100:+.2f}%",
            agents=n,
            expected=None if null is None else f"{null.expected_best:+.2f}%",
            p_value=None if null is None else null.cloud.best_p_value(top[3], n),
        )
    return {
        "race": race_payload(runners, start, None if lead is None else lead.name),
        "story": story_text(lead, "No run is ranked yet."),
    }
