"""Fault containment as a property: any text an agent sends, a direction round completes."""

from __future__ import annotations

import asyncio
import tempfile
from datetime import timedelta
from pathlib import Path

from direction_helpers import START, always, contestant  # type: ignore[import-not-found]
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.agents.base import Turn
from tradeleague.calls import Outcome
from tradeleague.league.direction import replay_direction
from tradeleague.market import Dataset
from tradeleague.store import open_store

ONE_ROUND = START + timedelta(minutes=5)
HOSTILE = [
    "[" * 70_000 + "]" * 70_000,
    'x" {"direction": "up", "a": ' + "[" * 70_000 + ' "',
    '{"direction": "up", "rationale": "\\ud800"}',
    '{"direction": "\ud800", "rationale": "x"}',
]


def _round(data: Dataset, text: str, latency_ms: int = 1_000) -> None:
    def play(turn: Turn) -> tuple[Outcome, str, int]:
        return Outcome.ANSWERED, text, latency_ms

    roster = [contestant("x", play), contestant("control", always("up", 1_000))]
    with (
        tempfile.TemporaryDirectory() as folder,
        open_store(f"sqlite:///{Path(folder) / 'd.db'}") as store,
    ):
        board = asyncio.run(replay_direction(store, data, roster, start=START, end=ONE_ROUND))
        kinds = [s.event.kind for s in store.events("direction")]
    assert kinds.count("RoundStarted") == kinds.count("RoundFinished") == 1
    x = next(r for r in board.models if r.entrant.name == "x")
    assert "league_fault" not in x.skips


def test_hostile_answers_complete_the_round(synthetic_btc: Dataset, deep_stack: None) -> None:
    """D-SKP-1, C-7: deep, surrogate-holding and late-forever answers: the round finishes."""
    for text in HOSTILE:
        _round(synthetic_btc, text)
    _round(synthetic_btc, '{"direction": "up"}', latency_ms=10**30)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=200))
def test_any_text_as_an_answer_completes_the_round(synthetic_btc: Dataset, text: str) -> None:
    """C-7: whatever an agent sends, the round finishes (a trade or a skip with its reason)."""
    _round(synthetic_btc, text)
