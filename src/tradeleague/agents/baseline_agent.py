"""A rule-based decision function as an ``Agent``: decide, then render as text.

A baseline answers through the same door as a model (C-2, C-6, T-AGT-1): its
decision is rendered into the format's answer text, and the format parses and
validates that text by the one code path every answer takes. A baseline is
never privileged: a rendering bug is caught like a model's bad answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from tradeleague.agents.base import AgentReply, Turn, resume_agent
from tradeleague.calls import Outcome

__all__ = ["BaselineAgent"]

D = TypeVar("D")


@dataclass(slots=True)
class BaselineAgent(Generic[D]):
    """Adapt ``decide`` and the format's ``render`` into an agent (kind ``baseline``).

    Parameters
    ----------
    name
        The agent's name.
    decide
        The rule: the turn's structured ``view`` in, a decision (or ``None``:
        keep things as they are) out. It must be a pure function of the view
        (and of a seeded generator it holds), so replays agree.
    render
        The format's renderer of a decision as answer text.
    """

    name: str
    decide: Callable[[object], D | None] = field(repr=False)
    render: Callable[[D | None], str] = field(repr=False)
    kind: str = "baseline"
    labels: dict[str, str] = field(default_factory=dict)

    def resume(self, turns: int) -> None:
        """Resume the rule after ``turns`` past turns, when it holds state (a seeded coin)."""
        resume_agent(self.decide, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Decide from ``turn.view`` and answer with the rendered text, at latency 0."""
        return AgentReply(outcome=Outcome.ANSWERED, text=self.render(self.decide(turn.view)))
