"""The inverse meta-agent: mirrors another agent's decision (T-AGT-1).

The seed's "Reverse Kimi" played the opposite of another model's call. An
``InverseAgent`` asks its source agent the same turn and answers with the
source's raw text, inverted by a format-specific function over that text (up
<-> down in the direction arena, long <-> short where a format has sides). An
answer the inverter cannot read is passed through unchanged, so the format's
validator rejects it exactly as it rejects the source's: the mirror never
repairs or guesses an answer (C-6), and a fault (timeout, rejected key) is
mirrored as the same fault.

To mirror an agent that is also in the roster without asking its model twice,
wrap the source in ``SharedAgent``: both the roster and the mirror then get the
one reply of each call key.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from tradeleague.agents.base import Agent, AgentReply, Turn, resume_agent
from tradeleague.llm.records import CallKey

__all__ = [
    "InverseAgent",
    "Inverter",
    "SharedAgent",
    "invert_direction_answer",
    "invert_json_field",
]

Inverter = Callable[[str], str | None]
"""Return the inverted answer text, or ``None`` when the text cannot be inverted."""


def _first_json_object(text: str) -> tuple[int, int, dict[str, object]] | None:
    """Return the span and value of the first JSON object in ``text`` (prose, fences)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value, end = None, start
        if isinstance(value, dict):
            return start, end, value
        start = text.find("{", start + 1)
    return None


def invert_json_field(
    name: str, pairs: Mapping[str, str], *, reason: tuple[str, str] | None = None
) -> Inverter:
    """Return an inverter that swaps field ``name`` of the answer's JSON object.

    The answer's first JSON object is found as the lenient extraction of D-ASK-3
    finds it (inside prose or a code fence); its ``name`` value is swapped by
    ``pairs`` and the object is written back in place, the text around it
    untouched. The value must match a key of ``pairs`` exactly.

    Parameters
    ----------
    name
        The field to swap (``direction``, ``side``).
    pairs
        Each value and its opposite; both directions must be listed.
    reason
        ``(field, prefix)``: a text ``field`` the mirror keeps is prefixed, so a
        reason given for the source's call is never shown as the opposite call's
        own (``("rationale", "Opposite of momentum, which said: ")``).

    Raises
    ------
    ValueError
        If ``pairs`` is not symmetric.
    """
    if any(pairs.get(opposite) != value for value, opposite in pairs.items()):
        raise ValueError(f"pairs must be symmetric, got {dict(pairs)!r}")

    def invert(text: str) -> str | None:
        found = _first_json_object(text)
        if found is None:
            return None
        start, end, value = found
        current = value.get(name)
        if not isinstance(current, str) or current not in pairs:
            return None
        value[name] = pairs[current]
        kept = value.get(reason[0]) if reason is not None else None
        if reason is not None and isinstance(kept, str):
            value[reason[0]] = reason[1] + kept
        return text[:start] + json.dumps(value, ensure_ascii=False) + text[end:]

    return invert


invert_direction_answer: Inverter = invert_json_field("direction", {"up": "down", "down": "up"})
"""The direction arena's inverter: swap ``"up"`` and ``"down"`` in the answer's object."""


class SharedAgent:
    """An agent whose reply to each call key is computed once and shared.

    The roster entry and any mirror of it await the same reply, so the source's
    model is asked once per turn. The first caller's turn is the one asked.

    Parameters
    ----------
    agent
        The agent to share; its ``name`` and ``kind`` are this agent's.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.kind = agent.kind
        self._replies: dict[CallKey, asyncio.Future[AgentReply]] = {}

    def resume(self, turns: int) -> None:
        """Resume the shared agent after ``turns`` past turns."""
        resume_agent(self.agent, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Return the shared reply to ``turn.key``, asking the agent on the first call only."""
        pending = self._replies.get(turn.key)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._replies[turn.key] = pending
            try:
                pending.set_result(await self.agent.answer(turn))
            except BaseException as exc:
                # Waiters see the same failure; nobody is left holding an unread future.
                del self._replies[turn.key]
                if isinstance(exc, Exception):
                    pending.set_exception(exc)
                    pending.exception()
                else:
                    pending.cancel()
                raise
        return await asyncio.shield(pending)

    def forget(self, season: str, round: str) -> None:
        """Drop the shared replies of one round (once every mirror has read them)."""
        for key in [k for k in self._replies if (k.season, k.round) == (season, round)]:
            del self._replies[key]


@dataclass(slots=True, kw_only=True)
class InverseAgent:
    """Mirror ``source``'s decision each turn (T-AGT-1).

    Parameters
    ----------
    name
        The mirror's own name.
    source
        The agent mirrored; it is asked the same turn under its own name in the
        call key (wrap it in ``SharedAgent`` if it also plays in the roster).
    inverter
        The format's inverter over raw answer text (``invert_direction_answer``).
    """

    name: str
    source: Agent
    inverter: Inverter = field(repr=False)
    kind: str = "inverse"
    labels: dict[str, str] = field(default_factory=dict)

    def resume(self, turns: int) -> None:
        """Resume the mirrored source after ``turns`` past turns (idempotent if shared)."""
        resume_agent(self.source, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Return the source's reply with its text inverted where it can be.

        The outcome and latency are the source's; the model calls stay on the
        source's record, so the mirror's ``records`` are empty (nothing is
        recorded twice).
        """
        key = replace(turn.key, agent=self.source.name)
        reply = await self.source.answer(replace(turn, key=key))
        text = reply.text
        if text is not None:
            inverted = self.inverter(text)
            text = text if inverted is None else inverted
        return AgentReply(outcome=reply.outcome, text=text, latency_ms=reply.latency_ms)
