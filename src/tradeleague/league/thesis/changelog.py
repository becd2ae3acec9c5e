"""The thesis league's changelog: every change that affects comparability, dated.

Folded from the seasons' own events, in the order they were recorded: a
season opening (its starting cash, versions and universe), an agent entering,
a season ending. What did not change from the season before is not repeated.
Names are plain text (C-10), as every read model serves them.
"""

from __future__ import annotations

from collections.abc import Iterable

from tradeleague.events import Event, EventKind
from tradeleague.events import thesis as tev
from tradeleague.formats.weights.text import plain_text
from tradeleague.money import micros_to_str

__all__ = ["thesis_changelog"]

_VERSIONS = (("scoring_version", "Scoring version"), ("prompt_version", "Prompt version"))


def _symbols(value: object) -> list[str]:
    return [str(s) for s in value] if isinstance(value, list) else []


def thesis_changelog(seasons: Iterable[Iterable[Event]]) -> list[dict[str, str]]:
    """Return the dated changes of ``seasons`` (each its stream's events, in order).

    Rules: C-3 (a published changelog of every change that affects
    comparability: prompt, roster, stake, universe, with its date), T-SEA-1,
    T-AGT-1 (an agent may enter mid-season).
    """
    out: list[dict[str, str]] = []
    before: dict[str, object] | None = None  # the previous season's opening terms
    for events in seasons:
        season = ""
        for e in events:
            p, day = e.payload, e.occurred_at.date().isoformat()
            if e.kind == EventKind.SEASON_STARTED:
                season = plain_text(str(p["season"]))
                cash = micros_to_str(int(str(p["start_cash"])))
                out.append(
                    {
                        "date": day,
                        "change": f"Season {season} opened ({str(p['start'])[:10]} to "
                        f"{str(p['end'])[:10]}, the end excluded): accounts start at {cash} USD.",
                    }
                )
                terms: dict[str, object] = {k: str(p[k]) for k, _ in _VERSIONS}
                terms["universe"] = (_symbols(p["crypto"]), _symbols(p["stocks"]))
                terms["benchmarks"] = _symbols(p["benchmarks"])
                for key, what in _VERSIONS:
                    if before is None or before[key] != terms[key]:
                        out.append({"date": day, "change": f"{what} {terms[key]}."})
                if before is None or before["universe"] != terms["universe"]:
                    crypto, stocks = _symbols(p["crypto"]), _symbols(p["stocks"])
                    out.append(
                        {
                            "date": day,
                            "change": f"Universe: {len(crypto)} cryptocurrencies and "
                            f"{len(stocks)} stocks ({', '.join(crypto + stocks)}).",
                        }
                    )
                if before is None or before["benchmarks"] != terms["benchmarks"]:
                    shown = ", ".join(_symbols(p["benchmarks"]))
                    out.append({"date": day, "change": f"Benchmarks (never held): {shown}."})
                before = terms
            elif e.kind == tev.AGENT_ENTERED:
                name = plain_text(str(p["agent"]))
                out.append(
                    {"date": day, "change": f"Roster: {name} entered at cycle {p['cycle']}."}
                )
            elif e.kind == EventKind.SEASON_ENDED:
                out.append({"date": day, "change": f"Season {season} ended."})
    return out
