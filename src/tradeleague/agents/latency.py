"""Simulated answer times for replays: an agent wrapper and a seeded latency model.

A replay moves a simulated clock, so how long an answer *would* have taken
decides whether it was on time (D-RND-3, D-RND-4, W-VAL-8). A recorded answer
carries its recorded latency; a live model asked during a replay can be given
a simulated one instead, drawn from the call's key so the replay is
reproducible whatever order the calls finish in.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tradeleague.agents.base import Agent, AgentReply, Turn, resume_agent

__all__ = ["SimulatedLatency", "seeded_latency"]


def seeded_latency(
    seed: int, *, low_ms: int = 1_500, high_ms: int = 30_000
) -> Callable[[Turn], int]:
    """Return a latency model: a uniform draw in ``[low_ms, high_ms]`` per call key.

    The draw depends only on the seed and the call's key (season, round,
    agent), never on call order, so a replay is reproducible.
    """

    def latency(turn: Turn) -> int:
        digest = hashlib.blake2b(f"{seed}/{turn.key.text}".encode(), digest_size=8).digest()
        return random.Random(int.from_bytes(digest, "big")).randint(low_ms, high_ms)  # noqa: S311

    return latency


@dataclass(slots=True)
class SimulatedLatency:
    """An agent whose answers take a simulated time instead of the measured one.

    The wrapped agent answers for real (through the gateway, say); its reply's
    ``latency_ms`` is replaced by ``latency(turn)``, the time a replay assumes
    the answer took. Everything else (text, outcome, call records) is kept.
    """

    agent: Agent
    latency: Callable[[Turn], int]
    name: str = field(init=False)
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.agent.name
        self.kind = self.agent.kind

    def resume(self, turns: int) -> None:
        """Resume the wrapped agent after ``turns`` past turns."""
        resume_agent(self.agent, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Answer through the wrapped agent, with the simulated latency."""
        reply = await self.agent.answer(turn)
        return replace(reply, latency_ms=self.latency(turn))
