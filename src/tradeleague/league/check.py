"""The check before round one: one real call per model agent, with the round's own prompt.

A format plays its first round in memory (nothing is recorded) with a
``CheckPacing``: the pacing asks every agent as live play does (through
``LivePacing``, so through ``take_turn`` and the gateway) and keeps how each
model agent's turn ended. `AgentCheck` turns that ending into a verdict: the
provider answered, its key was accepted, the model exists and the round's
prompt fitted its context (its size in the provider's own tokens when the
provider reports them), or the cause and the fix in one line.

A replay and a host's start run the check before any round is played (a
replay after taking its season's writer claim, so a held season costs no
call), and stop with ``EXIT_NO_DECISIONS`` when an agent fails it;
``tradeleague agents check`` runs it alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from tradeleague.agents.base import Agent, Turn, answers_at_once
from tradeleague.agents.spec import parse_agent_spec
from tradeleague.broker.base import Broker, CloseEvent
from tradeleague.calls import Outcome
from tradeleague.clock import Clock
from tradeleague.events import Event
from tradeleague.league.answers import DECISION, advice, error_class, plain_text, turn_ends
from tradeleague.league.pacing import LivePacing
from tradeleague.league.turns import TakenTurn

__all__ = ["MODEL_KINDS", "AgentCheck", "CheckPacing", "calls_models", "failed", "judge_turns"]

MODEL_KINDS = frozenset({"openai", "local"})
"""The agent kinds that call a model, and so are checked."""


@dataclass(frozen=True, slots=True)
class AgentCheck:
    """How one model agent's check call ended.

    Attributes
    ----------
    agent
        The agent's name.
    cause
        ``None`` when the provider answered; else the fault's class
        (``connection_refused``, ``key_rejected``, ``model_not_found``,
        ``context_too_small``...: `tradeleague.league.answers.error_class`).
    detail
        One sentence: what was measured, or the cause and the fix.
    prompt_tokens
        The prompt's size as the provider counted it, when it said.
    refused
        The reason code the format's validation gave the answer, when it refused it.
    """

    agent: str
    cause: str | None
    detail: str
    prompt_tokens: int | None = None
    refused: str | None = None

    @property
    def ok(self) -> bool:
        """Return whether the provider answered the round's prompt."""
        return self.cause is None

    def line(self) -> str:
        """Return the one line the terminal prints for this agent."""
        return f"{self.agent}: {self.detail}"


class CheckPacing(LivePacing):
    """A pacing for a round played in memory to check its model agents (see the module notes).

    Every ask goes out at once, as ``LivePacing`` asks (the shared ``take_turn``
    path); the turns of agents that call a provider are kept in ``taken`` by
    agent name. Closes and polls end at once: a check round settles nothing.

    Parameters
    ----------
    clock
        The round's clock (a replay clock at the round's hour, or the wall clock).
    """

    live = False

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock)
        self.taken: dict[str, TakenTurn] = {}
        self._order: list[str] = []

    @property
    def asked(self) -> list[str]:
        """Return the model agents asked, in the order they were asked."""
        return list(self._order)

    async def turns(
        self, asks: Sequence[tuple[Agent, Turn]], limit: timedelta
    ) -> AsyncGenerator[TakenTurn, None]:
        """Ask every agent as live play does; keep each model agent's turn."""
        for agent, _turn in asks:  # listed in the order asked, whatever the order answered
            if not answers_at_once(agent) and agent.name not in self._order:
                self._order.append(agent.name)
        async with contextlib.aclosing(super().turns(asks, limit)) as turns:
            async for taken in turns:
                agent = asks[taken.index][0]
                if not answers_at_once(agent):
                    self.taken.setdefault(agent.name, taken)
                yield taken

    async def polls(self, until: datetime, every: timedelta) -> AsyncIterator[None]:
        """Yield once: a check reads outside input once."""
        yield

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Return no close: a check round is never settled."""
        return []


def _judged(agent: str, taken: TakenTurn, refused: str | None) -> AgentCheck:
    if taken.fault is not None:
        return AgentCheck(agent, "league_fault", taken.fault.detail)
    reply = taken.reply
    if reply is None:  # pragma: no cover - a taken turn has a reply or a fault
        raise ValueError("a taken turn without a reply or a fault")
    record = reply.records[-1] if reply.records else None
    tokens = None if record is None else record.prompt_tokens
    if reply.outcome is Outcome.ANSWERED:
        counted = "" if tokens is None else f", prompt {tokens} tokens (the provider's count)"
        said = "" if refused is None else f"; its answer was refused ({refused})"
        detail = f"ok: answered in {reply.latency_ms} ms{counted}{said}"
        return AgentCheck(agent, None, detail, tokens, refused)
    if record is None:
        cause, error = reply.outcome.value, reply.error or "no detail"
    else:
        cause = error_class(record) or reply.outcome.value
        error = plain_text(record.error or reply.error or "no detail")
    return AgentCheck(agent, cause, advice(cause, error, tokens), tokens)


def judge_turns(pacing: CheckPacing, events: Iterable[Event] = ()) -> list[AgentCheck]:
    """Return each model agent's check from the turns ``pacing`` kept, in the order asked.

    ``events`` are the check round's events (never recorded): an answer the
    format's validation refused is named on its agent's line, as a note.
    """
    refused = {
        end.agent: end.reason
        for end in turn_ends(events)
        if end.ending != DECISION and end.reason is not None
    }
    return [
        _judged(name, pacing.taken[name], refused.get(name))
        for name in pacing.asked
        if name in pacing.taken
    ]


def failed(checks: Iterable[AgentCheck]) -> list[AgentCheck]:
    """Return the checks that failed."""
    return [c for c in checks if not c.ok]


def calls_models(specs: Iterable[str]) -> bool:
    """Return whether any of the agent specs ``specs`` calls a model (and so is checked)."""
    return any(parse_agent_spec(s).kind in MODEL_KINDS for s in specs)
