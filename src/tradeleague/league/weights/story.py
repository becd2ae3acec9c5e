"""A weights table's race and story (``league.story``): the division's accounts and its leader.

An agent's ``versus`` is its account value at each trading day's last entry
against buy-and-hold of the table's benchmark from the same start cash, held
from the agent's first entry as its buy-and-hold verdict holds it (ST-2).

The race is each agent's account value after each of its entries, from the
season's start cash; the leader is the table's first-ranked agent, judged by
the table's no-skill null (ST-2): the expected best return of N agents and
how often the best of N ends at the leader's value or more.
"""

from __future__ import annotations

from typing import Any

from tradeleague.formats.weights import Division, plain_text
from tradeleague.formats.weights.luck import TableLuck
from tradeleague.league.story import Lead, Runner, race_payload, story_text, versus_payload
from tradeleague.league.weights.state import SeasonState

__all__ = ["weights_story", "weights_versus"]


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


def weights_versus(state: SeasonState, agent: str, benchmark: str | None) -> dict[str, Any] | None:
    """Return ``agent``'s ``versus``: its value per trading day and the benchmark held.

    ``None`` with no benchmark, no entry, or no benchmark price at the first entry.
    """
    entries = sorted(state.agents[agent].entries, key=lambda e: e.round)
    prices = {r.hour: r.prices.get(benchmark) for r in state.rounds} if benchmark else {}
    first = prices.get(entries[0].round) if entries else None
    if benchmark is None or not first:
        return None
    start = int(state.preset.start_cash)
    days: dict[str, tuple[int, int]] = {}
    held = start
    for entry in entries:
        price = prices.get(entry.round)
        if price:  # a round with no price of the benchmark keeps its last value
            held = start * int(price) // int(first)
        days[entry.day.isoformat()] = (entry.value, held)
    points = [(day, value, bench) for day, (value, bench) in days.items()]
    name = plain_text(state.agents[agent].name)
    return versus_payload(name, f"holding {benchmark}", "day", start, points)
