"""A weights table's race and story (``league.story``): the division's accounts and its leader.

The race is each agent's account value after each of its entries, from the
season's start cash; the leader is the table's first-ranked agent, judged by
the table's no-skill null (ST-2): the expected best return of N agents and
how often the best of N ends at the leader's value or more.
"""

from __future__ import annotations

from typing import Any

from tradeleague.formats.weights import Division, plain_text
from tradeleague.formats.weights.luck import TableLuck
from tradeleague.league.story import Lead, Runner, race_payload, story_text
from tradeleague.league.weights.state import SeasonState

__all__ = ["weights_story"]


def weights_story(state: SeasonState, division: Division, luck: TableLuck) -> dict[str, Any]:
    """Return the table's ``race`` and ``story`` keys."""
    rows = state.table(division)
    start = int(state.preset.start_cash)
    runners = [
        Runner(
            plain_text(r.name),
            [start, *(value for value, _, _ in state.entry_books.get(r.agent, []))],
            state.agents[r.agent].spec.startswith("baseline"),
        )
        for r in rows
    ]
    top = next((r for r in rows if r.rank == 1), None)
    lead = None
    if top is not None:
        null = luck.null
        lead = Lead(
            name=plain_text(top.name),
            figure=f"{top.season_return:+.2f}%",
            agents=len(rows),
            expected=None if null is None else f"{null.expected_best:+.2f}%",
            p_value=None if null is None else null.cloud.best_p_value(int(top.value), len(rows)),
        )
    return {
        "race": race_payload(runners, start, None if lead is None else lead.name),
        "story": story_text(lead),
    }
