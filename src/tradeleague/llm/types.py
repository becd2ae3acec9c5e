"""The values every model call is made of: request, parameters, outcome, reply.

Outcomes are values, not exceptions (DESIGN principle 7): a provider turns every
fault it meets into one ``Outcome`` with a code.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "CallParams",
    "ChatRequest",
    "Message",
    "ModelReply",
    "Outcome",
    "Provider",
]


class Outcome(enum.StrEnum):
    """How a model call ended."""

    ANSWERED = "answered"
    TIMEOUT = "timeout"
    KEY_REJECTED = "key_rejected"
    MODEL_NOT_FOUND = "model_not_found"
    RATE_LIMITED = "rate_limited"
    PROVIDER_ERROR = "provider_error"
    KEY_UNREADABLE = "key_unreadable"


@dataclass(frozen=True, slots=True, kw_only=True)
class CallParams:
    """Parameters set once per round and identical for every participant (C-2)."""

    temperature: float = 0.3
    max_tokens: int = 320
    reasoning: bool = False
    timeout_s: float = 45.0
    retries: int = 0
    """Retries a format allows; each must still finish inside the deadline."""


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message, in chat-completions terms.

    Parameters
    ----------
    role
        ``system``, ``user``, ``assistant`` or ``tool``.
    content
        The text; an ``assistant`` message that only calls tools has ``""``
        (sent as ``null``).
    tool_calls
        The tool calls of an ``assistant`` message, exactly as the model sent
        them (chat-completions format: ``id``, ``type``, ``function``).
    tool_call_id
        For a ``tool`` message: the ``id`` of the tool call it answers.
    """

    role: str
    content: str
    tool_calls: tuple[Mapping[str, Any], ...] = field(default=(), kw_only=True)
    tool_call_id: str | None = field(default=None, kw_only=True)

    def to_wire(self) -> dict[str, Any]:
        """Return the message as a chat-completions ``messages`` item."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [dict(c) for c in self.tool_calls]
            if not self.content:
                out["content"] = None
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest:
    """One request shape for every model (OpenAI chat-completions semantics)."""

    model: str
    messages: tuple[Message, ...]
    params: CallParams
    json_schema: Mapping[str, Any] | None = None
    """An optional schema the answer must follow (used to constrain the house model)."""
    tools: tuple[Mapping[str, Any], ...] = ()
    """Tool definitions in the chat-completions ``tools`` format (T-AGT-2)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelReply:
    """What came back from one call, whatever happened."""

    outcome: Outcome
    text: str | None = None
    """The raw response text, exactly as received (C-4)."""
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    http_status: int | None = None
    error: str | None = None
    tool_calls: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    finish_reason: str | None = None
    """Why the model stopped (``stop``, ``length``, ``tool_calls``...), where reported."""
    retry_after_s: float | None = None
    """How long the provider asked us to wait before retrying (HTTP ``Retry-After``)."""


@runtime_checkable
class Provider(Protocol):
    """A model provider: one small class behind the gateway.

    ``complete`` must not raise for provider faults: it returns a ``ModelReply``
    with the matching ``Outcome``. The gateway enforces the deadline around it.
    """

    name: str

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        """Send ``request`` and return the reply."""
        ...
