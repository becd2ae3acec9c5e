"""``REPORT.json`` of a weights season: every entry, every round's prices, the tables.

Anyone can recompute every entry from the report and the recorded answers
alone: each round lists its prices and halted symbols, each entry its value,
cash and holdings. Amounts are exact decimal strings (micro-dollar, micro-token
precision); percentages are rounded as W-SCO-2.
"""

from __future__ import annotations

from typing import Any

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.formats.weights import Division
from tradeleague.league import weights_events as ev
from tradeleague.league.weights_state import SeasonState
from tradeleague.money import micros_to_str

__all__ = ["build_report"]


def build_report(state: SeasonState) -> dict[str, Any]:
    """Return the report of ``state`` as JSON-safe values (see the module docstring)."""
    preset = state.preset
    rows = {row.agent: row for d in Division for row in state.table(d)}
    agents: list[dict[str, Any]] = []
    for a in state.agents.values():
        entries = [e for e in a.entries]
        holdings_by_entry = _entry_books(state, a.agent)
        row = rows[a.agent]
        agents.append(
            {
                "name": a.name,
                "division": a.division.value,
                "entries": [
                    {
                        "round": ev.iso(e.round),
                        "kind": e.kind.value,
                        "reason_code": e.reason_code,
                        **holdings_by_entry[i],
                    }
                    for i, e in enumerate(entries)
                ],
                "trades": a.trades,
                "season_return": str(row.season_return),
                "max_drawdown": str(row.max_drawdown),
                "rank": row.rank,
                "unranked_reason": None
                if row.unranked_reason is None
                else row.unranked_reason.value,
            }
        )
    return {
        "disclaimer": DISCLAIMER,
        "season": state.season_id,
        "source": state.source,
        "synthetic": state.synthetic,
        "scoring_version": preset.scoring_version,
        "prompt_version": preset.prompt_version,
        "agents": agents,
        "rounds": [
            {
                "time": ev.iso(r.hour),
                "prices": {s: micros_to_str(p) for s, p in sorted(r.prices.items())},
                "halted": sorted(r.halted),
            }
            for r in state.rounds
        ],
        "closed_rounds": [
            {"time": ev.iso(h), "reasons": reasons}
            for h, reasons in sorted(state.closed_hours.items())
        ],
    }


def _entry_books(state: SeasonState, agent: str) -> list[dict[str, Any]]:
    books = state.entry_books.get(agent, [])
    return [
        {
            "value": micros_to_str(value),
            "cash": micros_to_str(cash),
            "holdings": {s: micros_to_str(q) for s, q in sorted(holdings.items())},
        }
        for value, cash, holdings in books
    ]
