"""What every model call is made of, in the core's terms: the message, the parameters, the outcome.

These are plain values shared by the pure formats (which build prompts and
read outcomes) and the shell (the gateway that makes the calls), so they live
beside ``money`` and ``clock`` rather than in ``llm/``. Outcomes are values,
not exceptions (DESIGN principle 7).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CallParams", "Message", "Outcome"]


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
