"""The language-model agent: the format's prompt, one model, one call through the gateway.

``LlmAgent`` answers a ``Turn`` by making exactly one ``Call`` through a
``ModelGateway`` (the live ``Gateway`` or the recorded-answer ``ReplayGateway``)
and returns the reply's raw text (C-4), its latency and the call's record
(C-5). Every fault is an ``Outcome`` (DESIGN principle 7); the one exception is
a replay that cannot answer a call (``ReplayMissed``): replaying a season that
the log cannot reproduce must stop, never fall back to a live call.

An owner's key may be passed sealed (``SealedKeyReader``): it is opened only
when the call is made, inside the gateway, so an unreadable key becomes
``Outcome.KEY_UNREADABLE`` (W-VAL-8) and the plaintext never sits on the agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.errors import TradeleagueError
from tradeleague.keys import KeyVault, SealedKey
from tradeleague.llm.gateway import ApiKey, Call, ModelGateway
from tradeleague.llm.records import CallRecord, ReplayMiss
from tradeleague.llm.replay import ReplayGateway
from tradeleague.llm.types import ChatRequest, StructuredOutput

__all__ = ["LlmAgent", "ReplayMissed", "SealedKeyReader", "call_one"]


class ReplayMissed(TradeleagueError):
    """A replay could not answer a call from the record (no record, another request...).

    Attributes
    ----------
    miss
        The gateway's ``ReplayMiss`` value: the call key, the reason and the detail.
    """

    def __init__(self, miss: ReplayMiss) -> None:
        super().__init__(
            f"replay cannot answer call {miss.key.text}: {miss.reason.value} ({miss.detail})"
        )
        self.miss = miss


@dataclass(frozen=True, slots=True, repr=False)
class SealedKeyReader:
    """An owner's sealed key, opened only when a call is made (C-9, W-VAL-8).

    Pass it as a ``Call``'s ``api_key``: the gateway calls it at call time, and
    any failure to open (wrong owner, tampering, unknown master key) becomes
    ``Outcome.KEY_UNREADABLE``. The record keeps the exception's type, and its
    message only for errors known never to hold a key (``KeyUnreadable``,
    ``KeyNotSet``: see ``tradeleague.llm.gateway.SAFE_KEY_ERRORS``).

    Parameters
    ----------
    vault
        The vault holding the master keys.
    owner_id
        The owner the key was sealed for.
    sealed
        The stored ciphertext.
    """

    vault: KeyVault
    owner_id: str
    sealed: SealedKey

    def __call__(self) -> str:
        """Return the plaintext key, for the provider call only.

        Raises
        ------
        tradeleague.keys.KeyUnreadable
            If the key cannot be opened for this owner.
        """
        return self.vault.open(self.owner_id, self.sealed)

    def __repr__(self) -> str:
        return f"SealedKeyReader(owner_id={self.owner_id!r}, key={self.sealed})"


async def call_one(gateway: ModelGateway, call: Call) -> CallRecord:
    """Make ``call`` through ``gateway`` and return its final record.

    Raises
    ------
    ReplayMissed
        If ``gateway`` replays recorded answers and has none for this call.
    """
    results: Sequence[CallRecord | ReplayMiss] = await gateway.call_all([call])
    result = results[0]
    if isinstance(result, ReplayMiss):
        raise ReplayMissed(result)
    return result


@dataclass(slots=True, kw_only=True)
class LlmAgent:
    """A prompt and a model behind the gateway.

    Parameters
    ----------
    name
        The agent's name on boards and in call keys.
    model
        The model id the provider knows (``openai/gpt-4o-mini``...).
    provider
        The gateway's provider name (``openrouter``, ``local``, a custom endpoint).
    gateway
        The live or replay gateway.
    api_key
        A key, a function that reads one at call time (``SealedKeyReader``, an
        environment lookup), or ``None`` for the provider's own.
    constrain
        Send the turn's JSON schema with the request (the house model turns it
        into a grammar; an OpenAI-compatible endpoint gets it in its dialect).
        Off by default; an agent spec's ``output=`` (or its preset's default)
        turns it on.
    output
        How the provider is asked to enforce the schema (``json_schema``,
        ``json_object`` or ``grammar``; ``tradeleague.llm.dialects``).
    kind
        ``llm``, or ``local`` for the house model.
    labels
        Group labels for boards (``provider``, ``tier``).
    """

    name: str
    model: str
    provider: str
    gateway: ModelGateway = field(repr=False)
    api_key: ApiKey = field(default=None, repr=False)
    constrain: bool = False
    output: StructuredOutput = "json_schema"
    kind: str = "llm"
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def answers_from_record(self) -> bool:
        """Return whether this agent answers from recorded calls: it never waits on a provider."""
        return isinstance(self.gateway, ReplayGateway)

    def request(self, turn: Turn) -> ChatRequest:
        """Return the exact request this agent sends for ``turn``."""
        return ChatRequest(
            model=self.model,
            messages=turn.messages,
            params=turn.params,
            json_schema=turn.json_schema if self.constrain else None,
            output=self.output,
        )

    def call(self, turn: Turn) -> Call:
        """Return the gateway call for ``turn``, under the turn's own call key."""
        return Call(
            request=self.request(turn), provider=self.provider, key=turn.key, api_key=self.api_key
        )

    async def answer(self, turn: Turn) -> AgentReply:
        """Make one call for ``turn``; return its raw text, outcome, latency and record.

        Raises
        ------
        ReplayMissed
            Only under a replay gateway that has no faithful record of the call.
        """
        record = await call_one(self.gateway, self.call(turn))
        return AgentReply(
            outcome=record.outcome,
            text=record.text,
            latency_ms=record.elapsed_ms,
            records=(record,),
        )
