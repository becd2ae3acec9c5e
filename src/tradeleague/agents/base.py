"""The agent contract every format uses: a turn goes in, raw answer text comes out.

Every kind of agent (a language model, a baseline, a scripted file, an inverse
meta-agent, a tool-using agent) answers a ``Turn`` with an ``AgentReply``
holding the raw text it "said". The format then parses and validates that text
by one code path (C-2, C-6): a baseline's answer is rendered into the format's
answer format and checked exactly like a model's, so no participant is
privileged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.untrusted import bounded_int, clean_text

__all__ = [
    "MAX_LATENCY_MS",
    "PROMPT_BLIND_KINDS",
    "Agent",
    "AgentReply",
    "Resumable",
    "Turn",
    "answers_at_once",
    "reads_messages",
    "resume_agent",
]

MAX_LATENCY_MS = 10**9
"""The longest latency a reply may claim (about 11.6 days); a longer one is cut to it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """What an agent is asked, identical for every participant of a round (C-2).

    Attributes
    ----------
    format
        The format's name (``weights``, ``direction``, ``thesis``).
    key
        The stable key of this call (season, round, agent, turn): recorded
        answers are found by it on replay.
    messages
        The exact prompt (system + user messages) the format built.
    params
        The round's call parameters (temperature, token cap, deadline...).
    json_schema
        The answer's JSON schema, for agents that can be constrained by it.
    view
        The format's structured view of the same facts the prompt holds, for
        rule-based agents (e.g. ``WeightsView``); never more than the prompt says.
    """

    format: str
    key: CallKey
    messages: tuple[Message, ...]
    params: CallParams
    json_schema: Mapping[str, Any] | None = None
    view: object | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentReply:
    """An agent's answer to one turn.

    Attributes
    ----------
    outcome
        ``answered``, or why there is no text (``timeout``, ``key_rejected``...).
    text
        The raw answer text, exactly as produced (C-4).
    latency_ms
        How long the answer took, in whole milliseconds (recorded or simulated
        in replay, so ``timeout`` and ``late`` replay identically).
    records
        The model calls made for this answer (C-5), in order; empty for agents
        that call no model.
    """

    outcome: Outcome
    text: str | None = None
    latency_ms: int = 0
    records: tuple[CallRecord, ...] = field(default_factory=tuple)
    error: str | None = None
    """Why there is no usable text, in words (never a key or other secret)."""

    def __post_init__(self) -> None:
        """Make what any agent sent storable: texts encodable, the latency bounded.

        A lone surrogate (which no event can hold) becomes U+FFFD; a latency
        past ``MAX_LATENCY_MS`` (or below 0) is cut into range, so no agent can
        raise an overflow in the middle of a round.
        """
        if isinstance(self.text, str):
            object.__setattr__(self, "text", clean_text(self.text))
        if isinstance(self.error, str):
            object.__setattr__(self, "error", clean_text(self.error))
        if isinstance(self.latency_ms, int):
            object.__setattr__(self, "latency_ms", bounded_int(self.latency_ms, 0, MAX_LATENCY_MS))


@runtime_checkable
class Agent(Protocol):
    """Anything that can take a turn."""

    name: str
    kind: str
    """``llm``, ``local``, ``baseline``, ``scripted``, ``inverse`` or ``tools``."""

    async def answer(self, turn: Turn) -> AgentReply:
        """Answer ``turn``; faults are outcomes, never exceptions."""
        ...


@runtime_checkable
class Resumable(Protocol):
    """An agent (or decision rule) whose answers depend on how many turns it has taken.

    A scripted file plays its lines in order; a seeded coin flip draws from one
    generator. After a restart the engine rebuilds each agent fresh and calls
    ``resume`` with the number of turns the record says it already took, so
    the next answer is the one an uninterrupted run would have given.
    """

    def resume(self, turns: int) -> None:
        """Continue as if ``turns`` turns had been taken (idempotent: at least that many)."""
        ...


def resume_agent(agent: object, turns: int) -> None:
    """Resume ``agent`` after ``turns`` past turns, if its answers depend on them.

    Agents without sequential state (a model, a rule that reads only the
    turn) are left as they are.
    """
    if turns > 0 and isinstance(agent, Resumable):
        agent.resume(turns)


PROMPT_BLIND_KINDS = frozenset({"baseline", "scripted"})
"""Kinds of agent that never read a turn's messages: a baseline decides from the
turn's structured view, a scripted agent plays its file."""


def reads_messages(agent: Agent) -> bool:
    """Return whether ``agent`` reads a turn's messages (a format builds them only if so).

    The answer a prompt-blind agent gives does not depend on the messages, so
    leaving them out changes no event; it spares a round the prompt of every
    baseline and scripted agent.
    """
    return agent.kind not in PROMPT_BLIND_KINDS


def answers_at_once(agent: Agent) -> bool:
    """Return whether ``agent`` answers without waiting on anything outside this process.

    A baseline or a script answers from what it holds; a model agent answering
    from a record (``--replay-answers``) says so with a true ``answers_from_record``.
    A replay asks such agents one after another in the round's own task, with no
    task each; any other agent may wait (on a provider) and gets a task of its own.
    """
    return agent.kind in PROMPT_BLIND_KINDS or getattr(agent, "answers_from_record", False) is True
