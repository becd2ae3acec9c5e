"""Where an arena call's answer is recorded: the direction arena's ``answers`` part.

A call's ``DecisionMade`` holds the text the agent answered with, the
direction and the rationale, and the season it belongs to; the season's
``SeasonStarted`` roster names each agent's provider (``baseline`` for a
rule). `league.answers` reads them into the log's rows and REPORT.json.
"""

from __future__ import annotations

from typing import Any, Final

from tradeleague.events import EventKind
from tradeleague.league.answers import TurnAnswer

__all__ = ["ANSWERS", "DirectionAnswers"]


class DirectionAnswers:
    """Reads an arena call as its turn's answer (`league.answers.AnswerReader`)."""

    kinds: Final = frozenset({EventKind.DECISION_MADE})

    def read(self, kind: str, payload: dict[str, Any]) -> TurnAnswer | None:
        """Return the call a ``DecisionMade`` records; None for another format's event."""
        if "direction" not in payload or not isinstance(payload.get("agent"), str):
            return None
        text = payload.get("text")
        return TurnAnswer(
            round=str(payload.get("round")),
            agent=str(payload["agent"]),
            text=None if text is None else str(text),
            fields={"direction": payload.get("direction"), "rationale": payload.get("rationale")},
            outcome="answered",
            latency_ms=int(str(payload.get("latency_ms") or 0)),
            season=str(payload.get("season")),
        )

    def sources(self, kind: str, payload: dict[str, Any]) -> dict[str, str]:
        """Return each rostered agent's source: ``baseline`` for a rule, else its provider."""
        roster = payload.get("roster") if kind == EventKind.SEASON_STARTED else None
        if not isinstance(roster, list) or payload.get("format") != "direction":
            return {}
        found: dict[str, str] = {}
        for row in roster:
            if isinstance(row, dict) and isinstance(row.get("name"), str):
                provider = str(row.get("provider"))
                found[row["name"]] = provider if provider in ("baseline", "scripted") else "model"
        return found


ANSWERS: Final = DirectionAnswers()
"""The part the ``direction`` format names as ``answers``."""
