"""Taking a turn: ask one agent under a hard deadline and contain whatever happens (C-2, C-7).

This is the one place any format asks an agent. ``take_turn`` awaits the
agent's answer and turns every way a turn can end into a value:

* the agent answered: its ``AgentReply``, whatever its outcome (a provider's
  ``key_rejected`` or ``timeout`` is the model's outcome, recorded as such);
* the agent did not answer by the deadline: a ``timeout`` reply that says the
  league stopped waiting, with the deadline as its latency;
* the agent raised: a ``TurnFault``, the league's fault and not the model's
  (W-SKP-3, D-SKP-1 ``league_fault``). Nothing is invented for it: no reply,
  no outcome the provider never gave.

Two things stay loud and propagate: ``ReplayMissed`` (a replay that cannot
answer from its record must stop, C-5) and cancellation.

The deadline is measured on the event loop's own clock (``asyncio.timeout``),
live and in replay alike: in a replay it guards against an agent that really
hangs, while the time an answer *would* have taken is its recorded or
simulated ``latency_ms``, which the pacing (``tradeleague.league.pacing``)
and the format's rules read.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.llm import ReplayMissed
from tradeleague.calls import Outcome

__all__ = ["GRACE_S", "TakenTurn", "TurnFault", "take_turn", "timeout_reply"]

_log = logging.getLogger(__name__)

GRACE_S = 5.0
"""Seconds the league waits past a call's own deadline before it stops waiting.

A model call carries its deadline to the provider (``CallParams.timeout_s``),
so a slow provider ends as the provider's ``timeout``, with its call record.
The league's hard deadline is that deadline plus this grace: it fires only
for an agent that hangs beyond its own deadline, and never races the call.
"""


@dataclass(frozen=True, slots=True)
class TurnFault:
    """An agent raised instead of answering: the league's fault, recorded as such (C-7)."""

    error: Exception

    @property
    def fault(self) -> str:
        """Return the error's class name, the fault's short code in the record."""
        return type(self.error).__name__

    @property
    def detail(self) -> str:
        """Return one sentence for the record: whose fault it was and what was raised."""
        return f"league fault, not the model's: the agent raised {self.fault}: {self.error}"


@dataclass(frozen=True, slots=True)
class TakenTurn:
    """How one turn of a round ended: exactly one of ``reply`` and ``fault`` is set.

    Attributes
    ----------
    index
        The turn's place in the order the round asked (its roster index).
    reply
        The agent's reply (any outcome), or ``None`` when it raised.
    fault
        What the agent raised, or ``None`` when it replied.
    """

    index: int
    reply: AgentReply | None = None
    fault: TurnFault | None = None

    def __post_init__(self) -> None:
        if (self.reply is None) == (self.fault is None):
            raise ValueError("a taken turn has a reply or a fault, never both or neither")

    @property
    def latency_ms(self) -> int:
        """Return the reply's latency (0 for a fault: it took no model time)."""
        return 0 if self.reply is None else self.reply.latency_ms


def timeout_reply(limit_s: float) -> AgentReply:
    """Return the reply of an agent the league stopped waiting for after ``limit_s``.

    Its latency is the deadline, in whole milliseconds rounded up: the time the
    league waited. Its outcome, not its latency, makes it a timeout in every
    format (W-VAL-8, D-SKP-1).
    """
    return AgentReply(
        outcome=Outcome.TIMEOUT,
        latency_ms=math.ceil(limit_s * 1000),
        error=f"no answer within {limit_s:g} s (the league stopped waiting)",
    )


async def take_turn(agent: Agent, turn: Turn, limit_s: float) -> AgentReply | TurnFault:
    """Ask ``agent`` for ``turn`` and return its reply, a timeout reply, or a ``TurnFault``.

    Parameters
    ----------
    agent
        Who answers.
    turn
        What it is asked (identical for every participant of the round, C-2).
    limit_s
        The hard deadline in seconds: no answer by then is a ``timeout``.

    Raises
    ------
    ReplayMissed
        If a replayed agent cannot answer from the record (C-5).
    asyncio.CancelledError
        If the round was cancelled.
    """
    try:
        async with asyncio.timeout(limit_s):
            return await agent.answer(turn)
    except ReplayMissed:
        raise
    except TimeoutError:
        _log.warning(
            "turn %s: no answer within %g s; recorded as a timeout", turn.key.text, limit_s
        )
        return timeout_reply(limit_s)
    except Exception as exc:  # the league's fault, never the model's (C-7)
        _log.warning("turn %s: the agent raised %r (league fault)", turn.key.text, exc)
        return TurnFault(exc)
