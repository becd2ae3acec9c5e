"""A thesis board's race and story (``league.story``): every agent's equity, and the leader.

The race is each agent's equity after each cycle it played, from the
season's start cash; the leader is the board's first-ranked agent, judged by
the season's no-skill null (ST-2): the expected best return of N agents and
how often the best of N ends at the leader's equity or more.

An agent's ``versus`` is its equity after each cycle it played against
holding SPY from the same start cash, bought at its first cycle's price (a
cycle with no SPY price, the market shut, keeps SPY's last value).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from tradeleague.league.story import Lead, Runner, race_payload, story_text, versus_payload
from tradeleague.league.thesis.state import SeasonState
from tradeleague.stats.null import SeasonNull

__all__ = ["thesis_story", "thesis_versus"]

BENCHMARK = "SPY"
"""What an agent's equity is drawn against: holding SPY, as its ``vs_spy`` verdict holds it."""


def thesis_story(
    state: SeasonState, null: SeasonNull | None, rows: Sequence[Mapping[str, object]]
) -> dict[str, Any]:
    """Return the board's ``race`` and ``story`` keys (``rows``: the board's, ranked)."""
    start = int(state.preset.start_cash)
    runners = [
        Runner(
            str(r["name"]),
            [start, *state.agents[str(r["name"])].equity],
            state.agents[str(r["name"])].spec.startswith("baseline"),
        )
        for r in rows
    ]
    top = next((r for r in rows if r["rank"] == 1), None)
    lead = None
    if top is not None:
        name = str(top["name"])
        equity = state.agents[name].equity
        lead = Lead(
            name=name,
            figure=f"{Decimal(str(top['return'])):+.2f}%",
            agents=len(rows),
            expected=None if null is None else f"{null.expected_best:+.2f}%",
            p_value=None
            if null is None or not equity
            else null.cloud.best_p_value(equity[-1], len(rows)),
        )
    return {
        "race": race_payload(runners, start, None if lead is None else lead.name),
        "story": story_text(lead),
    }


def thesis_versus(state: SeasonState, name: str) -> dict[str, Any] | None:
    """Return ``name``'s ``versus``: its equity per cycle and SPY held (``None`` with no price)."""
    equity = state.agents[name].equity
    cycles = list(state.cycles.values())[-len(equity) :] if equity else []
    start = int(state.preset.start_cash)
    points: list[tuple[str, int, int]] = []
    first: Decimal | None = None
    held = start
    for cycle, value in zip(cycles, equity, strict=False):
        prices = cycle.get("prices")
        price = prices.get(BENCHMARK) if isinstance(prices, dict) else None
        if price is not None:
            first = first or Decimal(str(price))
            held = int(start * Decimal(str(price)) / first)
        if first is not None:
            points.append((str(cycle.get("round", "")), value, held))
    if not points:
        return None
    return versus_payload(name, f"holding {BENCHMARK}", "cycle", start, points)
