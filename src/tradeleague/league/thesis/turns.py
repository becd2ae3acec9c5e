"""How a thesis turn's attempts ended: the format's ``turns`` part (`league.answers.AttemptReader`).

A thesis turn is its ``AttemptJudged`` events: the answer, then the correction
if there was one (T-CYC-7, T-CYC-9). The shared reader (`league.answers.turn_ends`)
joins them into one ending per turn.
"""

from __future__ import annotations

from typing import Any, Final

from tradeleague.calls import Outcome
from tradeleague.events.thesis import ATTEMPT_JUDGED
from tradeleague.league.answers import DECISION, NO_DECISION, SKIPPED, TurnEnd

__all__ = ["TURNS", "ThesisAttempts"]


class ThesisAttempts:
    """Reads one ``AttemptJudged`` event as the ending of that attempt."""

    kind: Final = ATTEMPT_JUDGED

    def judge(self, payload: dict[str, Any], agent: str) -> TurnEnd:
        """Return the ending of one thesis attempt (T-CYC-7, T-CYC-9).

        A valid answer is a decision (an empty list of actions too), unless every
        one of its actions was rejected: then it is no decision, its reason the
        first action's code, as for an answer rejected whole (the answer's code).
        A call that did not answer is no decision, its reason the call's outcome;
        a fault on the league's side is a skipped turn.
        """
        outcome = str(payload.get("outcome") or "unknown")
        if outcome == "fault":
            return TurnEnd(agent, SKIPPED, "league_fault")
        if outcome != Outcome.ANSWERED.value:
            return TurnEnd(agent, NO_DECISION, outcome)
        reason = payload.get("answer_reason")
        if reason is not None:
            return TurnEnd(agent, NO_DECISION, str(reason))
        decisions = payload.get("decisions")
        rows = [d for d in decisions if isinstance(d, dict)] if isinstance(decisions, list) else []
        if rows and all(d.get("status") == "rejected" for d in rows):
            return TurnEnd(agent, NO_DECISION, str(rows[0].get("reason_code") or "rejected"))
        return TurnEnd(agent, DECISION)


TURNS: Final = ThesisAttempts()
