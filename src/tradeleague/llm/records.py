"""The record of one model call, and its JSON-safe form for the event store (C-5).

A ``CallRecord`` holds the exact request (model, messages, parameters, schema,
tools), what came back (text exactly as received, C-4; tool calls; status;
error), the timings, the token counts and the cost. ``to_payload`` turns it into
JSON values with no floats: timings are whole milliseconds and float parameters
are decimal strings; schemas, tools and tool calls are canonical JSON text, so
the payload holds no float whatever they contain (a message's tool calls too).
``from_payload`` is its exact inverse, reads the older version 1 as well, and
rejects anything else.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.clock import ensure_utc
from tradeleague.llm.types import ModelReply
from tradeleague.money import Usd

__all__ = [
    "PAYLOAD_VERSION",
    "READABLE_VERSIONS",
    "CallKey",
    "CallRecord",
    "MissReason",
    "RecordFormatError",
    "ReplayMiss",
]

_T = TypeVar("_T")

PAYLOAD_VERSION = 2
"""The version of the payload layout; bumped on any change.

Version 2 added the tool fields of a message (``tool_calls`` as canonical JSON
text, ``tool_call_id``), present only on messages that have them. Version 1
payloads (messages of exactly ``role`` and ``content``) are still read.
"""

READABLE_VERSIONS = frozenset({1, 2})
"""The payload versions ``from_payload`` reads."""


class RecordFormatError(ValueError):
    """A payload is not a valid call record."""


@dataclass(frozen=True, slots=True)
class CallKey:
    """The stable key of one call, supplied by the caller: season, round, agent, turn.

    ``turn`` counts the calls one agent makes inside one round (0 for the
    decision, 1 for a correction round, one per step of a tool-using agent).
    """

    season: str
    round: str
    agent: str
    turn: int = 0

    @property
    def text(self) -> str:
        """Return the key as one string, ``season/round/agent/turn``."""
        return f"{self.season}/{self.round}/{self.agent}/{self.turn}"


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRecord:
    """Everything about one attempt of one model call.

    Timings are whole milliseconds, rounded up: ``queued_ms`` waited for a slot
    under the provider's concurrency limit before this attempt, ``latency_ms``
    from sending to the reply (or to the deadline), ``elapsed_ms`` from the
    moment the round asked to the end of this attempt. The reply the caller gets
    is the record with ``final`` set.
    """

    key: CallKey
    attempt: int
    final: bool
    provider: str
    model: str
    messages: tuple[Message, ...]
    params: CallParams
    json_schema: Mapping[str, Any] | None
    tools: tuple[Mapping[str, Any], ...]
    outcome: Outcome
    text: str | None
    tool_calls: tuple[Mapping[str, Any], ...]
    finish_reason: str | None
    http_status: int | None
    error: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_micros: Usd | None
    asked_at: datetime
    queued_ms: int
    latency_ms: int
    elapsed_ms: int

    @property
    def reply(self) -> ModelReply:
        """Return the reply as the agent sees it; ``latency_s`` counts from the ask."""
        return ModelReply(
            outcome=self.outcome,
            text=self.text,
            latency_s=self.elapsed_ms / 1000,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            http_status=self.http_status,
            error=self.error,
            tool_calls=self.tool_calls,
            finish_reason=self.finish_reason,
        )

    def to_payload(self) -> dict[str, Any]:
        """Return the record as JSON-safe values with no floats."""
        p = self.params
        return {
            "v": PAYLOAD_VERSION,
            "key": {
                "season": self.key.season,
                "round": self.key.round,
                "agent": self.key.agent,
                "turn": self.key.turn,
            },
            "attempt": self.attempt,
            "final": self.final,
            "provider": self.provider,
            "model": self.model,
            "messages": [_message_payload(m) for m in self.messages],
            "params": {
                "temperature": repr(float(p.temperature)),
                "max_tokens": p.max_tokens,
                "reasoning": p.reasoning,
                "timeout_s": repr(float(p.timeout_s)),
                "retries": p.retries,
            },
            "json_schema": None if self.json_schema is None else _canonical(self.json_schema),
            "tools": _canonical(list(self.tools)) if self.tools else "[]",
            "outcome": self.outcome.value,
            "text": self.text,
            "tool_calls": _canonical(list(self.tool_calls)) if self.tool_calls else "[]",
            "finish_reason": self.finish_reason,
            "http_status": self.http_status,
            "error": self.error,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_micros": self.cost_micros,
            "asked_at": self.asked_at.isoformat(),
            "queued_ms": self.queued_ms,
            "latency_ms": self.latency_ms,
            "elapsed_ms": self.elapsed_ms,
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> CallRecord:
        """Rebuild a record from ``to_payload``'s output.

        Raises
        ------
        RecordFormatError
            On a wrong version, a missing or unknown field, or a value of the wrong type.
        """
        _exact_keys(payload, _TOP_KEYS, "record")
        version = payload["v"]
        if type(version) is not int or version not in READABLE_VERSIONS:
            raise RecordFormatError(
                f"record payload version {version!r} is not one of {sorted(READABLE_VERSIONS)}"
            )
        key = _mapping(payload, "key")
        _exact_keys(key, {"season", "round", "agent", "turn"}, "key")
        params = _mapping(payload, "params")
        _exact_keys(
            params, {"temperature", "max_tokens", "reasoning", "timeout_s", "retries"}, "params"
        )
        try:
            outcome = Outcome(_typed(payload, "outcome", str))
            asked_at = ensure_utc(datetime.fromisoformat(_typed(payload, "asked_at", str)))
            temperature = float(_typed(params, "temperature", str))
            timeout_s = float(_typed(params, "timeout_s", str))
        except ValueError as exc:
            raise RecordFormatError(f"bad record value: {exc}") from exc
        schema_text = _optional(payload, "json_schema", str)
        cost = _optional(payload, "cost_micros", int)
        return cls(
            key=CallKey(
                _typed(key, "season", str),
                _typed(key, "round", str),
                _typed(key, "agent", str),
                _typed(key, "turn", int),
            ),
            attempt=_typed(payload, "attempt", int),
            final=_typed(payload, "final", bool),
            provider=_typed(payload, "provider", str),
            model=_typed(payload, "model", str),
            messages=tuple(_message(m, version) for m in _typed(payload, "messages", list)),
            params=CallParams(
                temperature=temperature,
                max_tokens=_typed(params, "max_tokens", int),
                reasoning=_typed(params, "reasoning", bool),
                timeout_s=timeout_s,
                retries=_typed(params, "retries", int),
            ),
            json_schema=None if schema_text is None else _json_object(schema_text),
            tools=_json_objects(_typed(payload, "tools", str)),
            outcome=outcome,
            text=_optional(payload, "text", str),
            tool_calls=_json_objects(_typed(payload, "tool_calls", str)),
            finish_reason=_optional(payload, "finish_reason", str),
            http_status=_optional(payload, "http_status", int),
            error=_optional(payload, "error", str),
            prompt_tokens=_optional(payload, "prompt_tokens", int),
            completion_tokens=_optional(payload, "completion_tokens", int),
            cost_micros=None if cost is None else Usd(cost),
            asked_at=asked_at,
            queued_ms=_typed(payload, "queued_ms", int),
            latency_ms=_typed(payload, "latency_ms", int),
            elapsed_ms=_typed(payload, "elapsed_ms", int),
        )


_TOP_KEYS = frozenset(
    {
        "v", "key", "attempt", "final", "provider", "model", "messages", "params",
        "json_schema", "tools", "outcome", "text", "tool_calls", "finish_reason",
        "http_status", "error", "prompt_tokens", "completion_tokens", "cost_micros",
        "asked_at", "queued_ms", "latency_ms", "elapsed_ms",
    }
)  # fmt: skip


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _exact_keys(data: Mapping[str, Any], keys: frozenset[str] | set[str], what: str) -> None:
    missing, unknown = set(keys) - set(data), set(data) - set(keys)
    if missing or unknown:
        raise RecordFormatError(f"{what}: missing {sorted(missing)}, unknown {sorted(unknown)}")


def _typed(data: Mapping[str, Any], name: str, kind: type[_T]) -> _T:
    value = data[name]
    # bool is an int subclass: an int field must not accept True, nor a bool field 1.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordFormatError(f"{name}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _optional(data: Mapping[str, Any], name: str, kind: type[_T]) -> _T | None:
    return None if data[name] is None else _typed(data, name, kind)


def _mapping(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data[name]
    if not isinstance(value, Mapping):
        raise RecordFormatError(f"{name}: expected an object")
    return value


def _message_payload(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = _canonical(list(message.tool_calls))
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


_MESSAGE_KEYS = frozenset({"role", "content"})
_MESSAGE_TOOL_KEYS = frozenset({"tool_calls", "tool_call_id"})


def _message(data: Any, version: int) -> Message:
    if not isinstance(data, Mapping):
        raise RecordFormatError("messages: each message must be an object")
    optional = _MESSAGE_TOOL_KEYS if version >= 2 else frozenset()
    _exact_keys(data, _MESSAGE_KEYS | (optional & set(data)), "message")
    calls = data.get("tool_calls")
    if calls is not None and not isinstance(calls, str):
        raise RecordFormatError("tool_calls: expected str")
    tool_calls = () if calls is None else _json_objects(calls)
    if "tool_calls" in data and not tool_calls:
        raise RecordFormatError("tool_calls: present but empty (omit it instead)")
    return Message(
        _typed(data, "role", str),
        _typed(data, "content", str),
        tool_calls=tool_calls,
        tool_call_id=_typed(data, "tool_call_id", str) if "tool_call_id" in data else None,
    )


def _json_load(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordFormatError(f"bad embedded JSON: {exc}") from exc


def _json_object(text: str) -> Mapping[str, Any]:
    value = _json_load(text)
    if not isinstance(value, dict):
        raise RecordFormatError("json_schema: expected a JSON object")
    return value


def _json_objects(text: str) -> tuple[Mapping[str, Any], ...]:
    value = _json_load(text)
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise RecordFormatError("expected a JSON list of objects")
    return tuple(value)


class MissReason(enum.StrEnum):
    """Why a replay could not answer a call from the record."""

    NOT_RECORDED = "not_recorded"
    """No record holds this call key."""
    REQUEST_DIFFERS = "request_differs"
    """A record holds the key, but the request asked now is not the one recorded."""
    INCOMPLETE = "incomplete"
    """The records of the key do not end in a final attempt (a cut-off log)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayMiss:
    """A call that replay cannot answer: an error value, never a silent live call."""

    key: CallKey
    reason: MissReason
    detail: str
