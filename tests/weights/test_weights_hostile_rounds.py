"""Fault containment as a property: any text an agent sends, a weights round completes.

Arbitrary text (and the hostile corpus) as answers: the round ends with a
decision or a "No decision" with its reason code, every event storable.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_weights_rules_extra import _one_round  # type: ignore[import-not-found]

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.calls import Outcome
from tradeleague.events import EventKind
from tradeleague.league.weights.round import RoundConfig
from tradeleague.store import open_store

HOSTILE = [
    "[" * 70_000 + "]" * 70_000,
    '{"targets": {"AAA": 10}, "reason": "\\ud800"}',
    '{"targets": {}, "reason": "\ud800 literal"}',
    '{"targets": {}, "reason": "\u200b\u200b"}',
    '{"targets": {"AAA": ' + "9" * 5000 + '}, "reason": "x"}',
]


class _Says:
    name = "x"
    kind = "scripted"

    def __init__(self, text: str, latency_ms: int = 0) -> None:
        self.text = text
        self.latency_ms = latency_ms

    async def answer(self, turn: Turn) -> AgentReply:
        return AgentReply(outcome=Outcome.ANSWERED, text=self.text, latency_ms=self.latency_ms)


def _completes(text: str, latency_ms: int = 0) -> str:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'a.db'}"
        events = _one_round(url, _Says(text, latency_ms), RoundConfig())
        with open_store(url) as store:
            store.append(events)  # every payload storable
    kinds = [e.kind for e in events]
    assert kinds[-1] == EventKind.ROUND_FINISHED
    assert EventKind.TURN_SKIPPED not in kinds
    made = [e for e in events if e.kind in (EventKind.DECISION_MADE, EventKind.NO_DECISION_MADE)]
    assert len(made) == 1
    return str(made[0].payload.get("reason_code") or "decision")


def test_hostile_answers_get_reason_codes(deep_stack: None) -> None:
    """W-VAL-1, W-VAL-6, C-7: the corpus ends in a reason code; a rerun meets it again, fine."""
    codes = [_completes(text) for text in HOSTILE]
    assert codes == ["not_in_format", "not_in_format", "decision", "empty_reason", "not_in_format"]
    assert _completes('{"targets": {}, "reason": "slow"}', latency_ms=10**30) == "decision"


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_any_text_as_an_answer_completes_the_round(text: str) -> None:
    """C-7: whatever an agent sends, the round finishes with a decision or a reason code."""
    _completes(text)
