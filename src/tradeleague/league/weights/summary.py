"""Strategy summaries written by the house model from the owner's prompt (W-REC-3, C-5, C-10).

``summarize_strategy`` asks the house model, through the gateway like any
other call (C-5: the call is recorded), for a short plain summary of the
prompt now in force, then records the text exactly as it arrived (C-4) in a
``StrategySummarized`` event, with the summary template's pinned version
(C-3). Nothing is filtered when it is stored: what is *shown* is decided at
read time by ``tradeleague.formats.weights.summary_shown`` (C-10): plain text,
invisible characters removed, and nothing at all when the summary holds a web
or wallet address. ``latest_summaries`` folds the events into the summary
each agent's page shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind, model_called_payload
from tradeleague.events import weights as ev
from tradeleague.events.weights import STRATEGY_SUMMARIZED
from tradeleague.formats.weights import summary_shown
from tradeleague.league.weights.state import SeasonState
from tradeleague.llm.gateway import Call, ModelGateway
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest
from tradeleague.store import Store

__all__ = [
    "STRATEGY_SUMMARIZED",
    "SUMMARY_PROMPT_VERSION",
    "Summary",
    "latest_summaries",
    "summarize_strategy",
    "summary_messages",
]

"""The event kind of a recorded summary."""

SUMMARY_PROMPT_VERSION: Final = "weights-summary-2026-10-06.1"
"""The pinned version of the summary template below (C-3)."""

_SYSTEM: Final = (
    "You summarise the trading strategy an owner wrote for a paper-trading agent. "
    "Answer with two plain sentences describing the strategy, nothing else: no links, "
    "no addresses, no advice to anyone."
)


@dataclass(frozen=True, slots=True)
class Summary:
    """An agent's latest summary: the text as stored and what may be shown (C-10)."""

    text: str | None
    shown: str | None

    @property
    def hidden(self) -> bool:
        """Return whether a stored summary is withheld (it holds a web or wallet address)."""
        return self.text is not None and self.shown is None


def summary_messages(prompt: str) -> tuple[Message, ...]:
    """Return the messages asking to summarise ``prompt`` (``SUMMARY_PROMPT_VERSION``)."""
    return (
        Message(role="system", content=_SYSTEM),
        Message(role="user", content=f"The owner's prompt, word for word:\n\n{prompt}"),
    )


async def summarize_strategy(
    store: Store,
    clock: Clock,
    state: SeasonState,
    agent: str,
    gateway: ModelGateway,
    *,
    provider: str,
    model: str,
    params: CallParams | None = None,
) -> CallRecord:
    """Ask the house model to summarise ``agent``'s prompt in force and record the result.

    Records the call (``ModelCalled``, C-5) and, when the model answered, the
    summary (``StrategySummarized``). Returns the call's final record.

    Raises
    ------
    ConfigError
        If the agent is unknown, or a replay gateway has no recorded answer.
    """
    if agent not in state.agents:
        raise ConfigError(f"no agent {agent!r} in season {state.season_id}")
    now = clock.now()
    changed_at, prompt = state.agents[agent].prompts[-1]
    request = ChatRequest(
        model=model,
        messages=summary_messages(prompt),
        params=params or CallParams(max_tokens=160, timeout_s=60),
    )
    key = CallKey(state.season_id, f"summary@{ev.iso(now)}", agent, 0)
    (record,) = await gateway.call_all([Call(request=request, provider=provider, key=key)])
    if not isinstance(record, CallRecord):
        raise ConfigError(f"no recorded summary for {key.text}")
    payload = model_called_payload(agent=agent, round=key.round, record=record.to_payload())
    events = [ev.event(state.stream, EventKind.MODEL_CALLED, payload, now)]
    if record.outcome is Outcome.ANSWERED and record.text is not None:
        events.append(
            ev.event(
                state.stream,
                STRATEGY_SUMMARIZED,
                {
                    "agent": agent,
                    "text": record.text,
                    "prompt_at": ev.iso(changed_at),
                    "summary_version": SUMMARY_PROMPT_VERSION,
                    "model": model,
                },
                now,
            )
        )
    store.append(events)
    return record


def latest_summaries(events: Iterable[Event]) -> dict[str, Summary]:
    """Return each agent's latest summary, stored text and shown text (C-10)."""
    out: dict[str, Summary] = {}
    for e in events:
        if e.kind == STRATEGY_SUMMARIZED:
            text = str(e.payload["text"])
            out[str(e.payload["agent"])] = Summary(text, summary_shown(text))
    return out
