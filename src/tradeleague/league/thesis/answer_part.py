"""Where a thesis attempt's answer is recorded: the thesis league's ``answers`` part.

Each ``AttemptJudged`` holds the raw answer text, the reasoning and each
action's decision; ``AgentEntered`` names each agent's kind (``baseline``,
``inverse``, a model). `league.answers` reads them into the log's rows and
REPORT.json.
"""

from __future__ import annotations

from typing import Any, Final

from tradeleague.events.thesis import AGENT_ENTERED, ATTEMPT_JUDGED
from tradeleague.league.answers import TurnAnswer, spec_source

__all__ = ["ANSWERS", "ThesisAnswers"]


class ThesisAnswers:
    """Reads a thesis attempt as its turn's answer (`league.answers.AnswerReader`)."""

    kinds: Final = frozenset({ATTEMPT_JUDGED})

    def read(self, kind: str, payload: dict[str, Any]) -> TurnAnswer | None:
        """Return the attempt an ``AttemptJudged`` records."""
        if not isinstance(payload.get("agent"), str):
            return None
        text = payload.get("raw_answer")
        return TurnAnswer(
            round=str(payload.get("round")),
            agent=str(payload["agent"]),
            text=None if text is None else str(text),
            fields={
                "attempt": payload.get("attempt"),
                "reasoning": payload.get("reasoning"),
                "decisions": payload.get("decisions"),
                "answer_reason": payload.get("answer_reason"),
            },
            outcome=str(payload.get("outcome") or "answered"),
        )

    def sources(self, kind: str, payload: dict[str, Any]) -> dict[str, str]:
        """Return the entering agent's source (``AgentEntered`` names its spec)."""
        agent, spec = payload.get("agent"), payload.get("spec")
        if kind == AGENT_ENTERED and isinstance(agent, str) and isinstance(spec, str):
            return {agent: spec_source(spec)}
        return {}


ANSWERS: Final = ThesisAnswers()
"""The part the ``thesis`` format names as ``answers``."""
