"""The weights league's changelog: every change that affects comparability, dated.

Folded from the seasons' own events, in the order they were recorded: a
season opening (its starting cash, versions and universe), a version that
changes between rounds, an agent joining the roster, a season ending. What
did not change from the season before is not repeated. Names are plain text
(C-10), as every read model serves them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tradeleague.events import Event, EventKind
from tradeleague.events import weights as ev
from tradeleague.formats.weights.text import plain_text
from tradeleague.money import micros_to_str

__all__ = ["changelog_entries"]

_VERSIONS = (("scoring_version", "Scoring version"), ("prompt_version", "Prompt version"))


def _day(e: Event) -> str:
    return e.occurred_at.date().isoformat()


def changelog_entries(seasons: Iterable[Iterable[Event]]) -> list[dict[str, str]]:
    """Return the dated changes of ``seasons`` (each its stream's events, in order).

    Rules: C-3 (a published changelog of every change that affects
    comparability: prompt, roster, stake, fees, universe, with its date).
    """
    out: list[dict[str, str]] = []
    before: dict[str, Any] | None = None  # the previous season's opening terms
    for events in seasons:
        season = ""
        current: dict[str, Any] = {}
        for e in events:
            p = e.payload
            day = _day(e)
            if e.kind == EventKind.SEASON_STARTED:
                season = plain_text(str(p["season"]))
                listed: Iterable[object] = p["symbols"]  # type: ignore[assignment]
                terms: dict[str, Any] = {
                    "start_cash": str(p["start_cash"]),
                    "symbols": [str(s) for s in listed],
                    **{k: str(p[k]) for k, _ in _VERSIONS},
                }
                cash = micros_to_str(int(terms["start_cash"]))
                out.append(
                    {
                        "date": day,
                        "change": f"Season {season} opened: accounts start at {cash} USD.",
                    }
                )
                for key, what in _VERSIONS:
                    if before is None or before[key] != terms[key]:
                        out.append({"date": day, "change": f"{what} {terms[key]}."})
                if before is None or before["symbols"] != terms["symbols"]:
                    symbols = ", ".join(terms["symbols"])
                    out.append(
                        {
                            "date": day,
                            "change": f"Universe: {len(terms['symbols'])} symbols ({symbols}).",
                        }
                    )
                before, current = terms, dict(terms)
            elif e.kind == EventKind.ROUND_STARTED and current:
                for key, what in _VERSIONS:
                    if str(p[key]) != current[key]:
                        current[key] = str(p[key])
                        out.append(
                            {
                                "date": day,
                                "change": f"{what} {current[key]} from the round of {p['round']}.",
                            }
                        )
            elif e.kind == ev.AGENT_CREATED:
                name = plain_text(str(p["name"]))
                out.append(
                    {"date": day, "change": f"Roster: {name} joined the {p['division']} division."}
                )
            elif e.kind == EventKind.SEASON_ENDED:
                out.append({"date": day, "change": f"Season {season} ended."})
        if current:
            before = {**before, **{k: current[k] for k, _ in _VERSIONS}} if before else current
    return out
