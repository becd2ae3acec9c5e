"""Where a weights turn's answer is recorded: the format's ``answers`` part.

A turn's entry (``DecisionMade`` or ``NoDecisionMade``) holds the text the agent
answered with; a decision also holds the targets it asked for (in hundredths of
a percent), its reason and the symbols capped at 40%. ``AgentCreated`` names
each agent's spec, so the log can say who answered (a model, a scripted file, a
baseline). `league.answers` reads them into the log's rows and REPORT.json.
"""

from __future__ import annotations

from typing import Any, Final

from tradeleague.events import EventKind
from tradeleague.events.weights import AGENT_CREATED
from tradeleague.league.answers import TurnAnswer, spec_source

__all__ = ["ANSWERS", "WeightsAnswers"]


class WeightsAnswers:
    """Reads a weights entry as its turn's answer (`league.answers.AnswerReader`)."""

    kinds: Final = frozenset({EventKind.DECISION_MADE, EventKind.NO_DECISION_MADE})

    def read(self, kind: str, payload: dict[str, Any]) -> TurnAnswer | None:
        """Return the answer an entry records; None for another format's event."""
        if "holdings" not in payload or not isinstance(payload.get("agent"), str):
            return None
        if kind == EventKind.DECISION_MADE:
            targets = payload.get("targets")
            asked = targets if isinstance(targets, dict) else {}
            capped = payload.get("capped")
            fields: dict[str, Any] = {
                "targets": {s: _percent(int(str(v))) for s, v in sorted(asked.items())},
                "reason": payload.get("reason"),
                "capped": list(capped) if isinstance(capped, list) else [],
            }
        else:
            fields = {"reason_code": payload.get("reason_code")}
        text = payload.get("text")
        return TurnAnswer(
            round=str(payload.get("round")),
            agent=str(payload["agent"]),
            text=None if text is None else str(text),
            fields=fields,
            outcome=str(payload.get("outcome") or "answered"),
            latency_ms=int(str(payload.get("latency_ms") or 0)),
        )

    def sources(self, kind: str, payload: dict[str, Any]) -> dict[str, str]:
        """Return the created agent's source (``AgentCreated`` names its spec)."""
        agent, spec = payload.get("agent"), payload.get("spec")
        if kind == AGENT_CREATED and isinstance(agent, str) and isinstance(spec, str):
            return {agent: spec_source(spec)}
        return {}


def _percent(hundredths: int) -> str:
    return f"{hundredths // 100}.{hundredths % 100:02d}"


ANSWERS: Final = WeightsAnswers()
"""The part the ``weights`` format names as ``answers``."""
