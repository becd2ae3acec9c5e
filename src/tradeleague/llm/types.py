"""What the gateway and its providers exchange: the request, the reply, the provider.

The message, parameters and outcome they carry are core values (``tradeleague.calls``).
A provider turns every fault it meets into one ``Outcome`` with a code (DESIGN principle 7).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.untrusted import bounded_int, clean_text, clean_value

MAX_TOKENS_COUNTED = 10**12
"""The largest token count a reply may claim; a bigger one is cut to it (never an overflow)."""

UNDER_GATEWAY_DEADLINE: ContextVar[bool] = ContextVar("under_gateway_deadline", default=False)
"""True inside the calls of a gateway batch, whose deadline ends every call first.

A provider's own client timeout (the call's window plus some slack, counted
from a later moment) can then never fire first, so a provider may skip
setting it: one timer less per call.
"""

StructuredOutput = Literal["json_schema", "json_object", "grammar"]
"""The outputs a request with a schema may ask for (``tradeleague.llm.dialects.Output``
without ``text``: a request in plain text carries no schema)."""

__all__ = [
    "MAX_TOKENS_COUNTED",
    "UNDER_GATEWAY_DEADLINE",
    "ChatRequest",
    "ModelReply",
    "Provider",
    "StructuredOutput",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest:
    """One request shape for every model (OpenAI chat-completions semantics)."""

    model: str
    messages: tuple[Message, ...]
    params: CallParams
    json_schema: Mapping[str, Any] | None = None
    """The answer's JSON schema, from the round, when the agent asks the provider to enforce it.

    The house model turns it into a grammar; an OpenAI-compatible endpoint sends
    it in its own dialect, as ``output`` says (``tradeleague.llm.dialects``).
    """
    output: StructuredOutput = "json_schema"
    """How the provider is asked to enforce ``json_schema`` (ignored without one)."""
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
    maybe_received: bool = False
    """The request was written and the connection dropped before the answer: the provider
    may have received it (and be billing it), so the gateway never sends it again."""

    def __post_init__(self) -> None:
        """Make what the provider sent storable: texts encodable, counts bounded."""
        for name in ("text", "error", "finish_reason"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, clean_text(value))
        for name in ("prompt_tokens", "completion_tokens"):
            count = getattr(self, name)
            if isinstance(count, int):
                object.__setattr__(self, name, bounded_int(count, 0, MAX_TOKENS_COUNTED))
        if self.tool_calls:
            object.__setattr__(self, "tool_calls", tuple(clean_value(self.tool_calls)))


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
