"""Helpers of the direction-arena tests: simple agents and a roster builder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.calls import Outcome
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.league.direction import Contestant

START = datetime(2025, 9, 1, 6, 0, tzinfo=UTC)
"""The first round of most replays (the candles start at 00:00, so 180 are there)."""


@dataclass(slots=True)
class PlayedAgent:
    """An agent that answers by a function of the turn: (outcome, text, latency ms)."""

    name: str
    play: Callable[[Turn], tuple[Outcome, str | None, int]]
    kind: str = "scripted"
    turns: list[Turn] = field(default_factory=list)

    async def answer(self, turn: Turn) -> AgentReply:
        self.turns.append(turn)
        outcome, text, latency = self.play(turn)
        return AgentReply(outcome=outcome, text=text, latency_ms=latency)


def always(direction: str, latency_ms: int = 2_000) -> Callable[[Turn], tuple[Outcome, str, int]]:
    text = f'{{"direction": "{direction}", "rationale": "Always {direction}."}}'
    return lambda turn: (Outcome.ANSWERED, text, latency_ms)


def contestant(
    name: str,
    play: Callable[[Turn], tuple[Outcome, str | None, int]],
    *,
    provider: str = "p1",
    tier: str = "TOP",
) -> Contestant:
    return Contestant(
        entrant=Entrant(name=name, provider=provider, tier=tier, model=f"{provider}/{name}"),
        agent=PlayedAgent(name, play),
    )
