"""Agents of the thesis league: the mirror (T-AGT-1) and the fast-forward of a resumed script.

``ThesisMirror`` answers with its source's reply to the same turn, opens'
sides swapped and invalidation levels mirrored about the turn's prices
(``formats/thesis/inverse.py``). ``skip_played`` moves a scripted agent (bare
or shared) past the answers a resumed season already recorded, so it answers
the next turn exactly as in an uninterrupted run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.inverse import SharedAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.calls import CallParams
from tradeleague.formats.thesis.baselines import ThesisView
from tradeleague.formats.thesis.inverse import invert_thesis_answer
from tradeleague.llm.records import CallKey

__all__ = ["ThesisMirror", "skip_played"]


@dataclass(slots=True, kw_only=True)
class ThesisMirror:
    """Answer with the source's reply to the same turn, sides swapped (T-AGT-1).

    The source is asked under its own name in the call key (wrap it in
    ``SharedAgent`` so it is asked once per key); the model calls stay on the
    source's record.
    """

    name: str
    source: Agent
    kind: str = "inverse"
    labels: dict[str, str] = field(default_factory=dict)

    async def answer(self, turn: Turn) -> AgentReply:
        """Return the source's reply, inverted where it reads as an answer."""
        key = replace(turn.key, agent=self.source.name)
        reply = await self.source.answer(replace(turn, key=key))
        text = reply.text
        view = turn.view
        if text is not None and isinstance(view, ThesisView):
            inverted = invert_thesis_answer(text, view.prices)
            text = text if inverted is None else inverted
        return AgentReply(outcome=reply.outcome, text=text, latency_ms=reply.latency_ms)


async def skip_played(agent: Agent, turns: int) -> None:
    """Move a scripted agent (bare or shared) on to its ``turns``-th answer; others are left."""
    inner = agent.agent if isinstance(agent, SharedAgent) else agent
    if not isinstance(inner, ScriptedAgent):
        return
    dummy = Turn(format="thesis", key=CallKey("", "", inner.name), messages=(), params=CallParams())
    for _ in range(turns - inner.played):
        await inner.answer(dummy)
