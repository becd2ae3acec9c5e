r"""What the fake provider plays: scripted answers, latencies and faults per model.

A ``Behaviour`` says how the fake server answers one request: which text, after
how long, or which fault instead. A ``Script`` maps model names to behaviours and
loads from JSON (the ``--script`` file of ``python -m
tradeleague.testing.fake_provider``)::

    {
      "default": {"text": "{\"direction\": \"up\", \"rationale\": \"trend\"}"},
      "models": {
        "slow-model": {"text": "...", "latency_s": 2.5},
        "broken-model": {"fault": "server_error"},
        "queued-model": {"texts": ["first answer", "second answer"]},
        "tool-model": {
          "steps": [
            {"text": "", "tool_calls": [{"id": "c1", "type": "function",
              "function": {"name": "candles", "arguments": "{}"}}]},
            {"text": "{\"direction\": \"up\", \"rationale\": \"r\"}"}
          ]
        }
      }
    }

``texts`` queues answers that differ only in their text; ``steps`` queues whole
behaviours (a tool-calling step, then an answer), each played once, in order,
before the entry's own behaviour (the rest of the entry).

A model that is neither in ``models`` nor covered by ``default`` gets a 404
``model_not_found``, as a real server does.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError

__all__ = [
    "HTTP_FAULTS",
    "KEY_ECHO_FAULTS",
    "REFUSAL_TEXT",
    "Behaviour",
    "Fault",
    "Script",
    "behaviour_from_mapping",
    "echo_key_message",
    "estimate_tokens",
    "render_text",
]

REFUSAL_TEXT = "I'm sorry, but I can't help with making trading decisions."
"""What a scripted refusal says."""


class Fault(enum.StrEnum):
    """A scripted way for a call to go wrong (or to answer awkwardly)."""

    UNAUTHORIZED = "unauthorized"
    """HTTP 401, ``invalid_api_key``."""
    FORBIDDEN = "forbidden"
    """HTTP 403, ``permission_denied``."""
    NOT_FOUND = "not_found"
    """HTTP 404, ``model_not_found``."""
    RATE_LIMITED = "rate_limited"
    """HTTP 429, ``rate_limit_exceeded``."""
    SERVER_ERROR = "server_error"
    """HTTP 500, ``server_error``."""
    UNAVAILABLE = "unavailable"
    """HTTP 503, ``service_unavailable``."""
    HANG = "hang"
    """Accept the request and never answer (until the server stops)."""
    MALFORMED_JSON = "malformed_json"
    """HTTP 200 with a body that is not JSON."""
    CODE_FENCES = "code_fences"
    """Answer, with the text wrapped in a Markdown code fence."""
    PROSE = "prose"
    """Answer, with the text wrapped in chatty prose."""
    REFUSAL = "refusal"
    """Answer with a refusal instead of the text."""
    OVERSIZED = "oversized"
    """Answer with the text repeated past ``oversize_chars``, ``finish_reason`` ``length``."""
    KEY_ECHOED = "key_echoed"
    """HTTP 401 whose message quotes the whole key sent, and its ``Authorization`` header."""
    KEY_MASKED = "key_masked"
    """HTTP 401 quoting the key as OpenAI does: its first 8 characters, stars, its last 4."""
    CONTEXT_EXCEEDED = "context_exceeded"
    """HTTP 400 as llama.cpp sends when the prompt does not fit its context (``-c``)."""


HTTP_FAULTS: Mapping[Fault, tuple[int, str, str]] = {
    Fault.UNAUTHORIZED: (401, "invalid_api_key", "Incorrect API key provided."),
    Fault.CONTEXT_EXCEEDED: (
        400,
        "exceed_context_size_error",
        "the request exceeds the available context size (n_prompt_tokens 2503, n_ctx 512); "
        "try increasing the context size or enable context shift",
    ),
    Fault.FORBIDDEN: (403, "permission_denied", "This key may not use this model."),
    Fault.NOT_FOUND: (404, "model_not_found", "The model does not exist."),
    Fault.RATE_LIMITED: (429, "rate_limit_exceeded", "Rate limit reached; retry later."),
    Fault.SERVER_ERROR: (500, "server_error", "The server had an error."),
    Fault.UNAVAILABLE: (503, "service_unavailable", "The engine is currently overloaded."),
}
"""Status code, OpenAI error code and message of each HTTP fault."""

KEY_ECHO_FAULTS = frozenset({Fault.KEY_ECHOED, Fault.KEY_MASKED})
"""HTTP 401 faults whose message quotes the key sent (see ``echo_key_message``)."""


def echo_key_message(fault: Fault, key: str) -> str:
    """Return the 401 message of a key-echo fault for the bearer ``key`` that was sent.

    ``KEY_ECHOED`` quotes the key whole (as some OpenAI-compatible servers do);
    ``KEY_MASKED`` as OpenAI does, e.g. ``sk-proj-****...abcd``.

    Raises
    ------
    ValueError
        If ``fault`` is not in ``KEY_ECHO_FAULTS``.
    """
    if fault is Fault.KEY_ECHOED:
        return f"Incorrect API key provided: {key}. The header was 'Authorization: Bearer {key}'."
    if fault is Fault.KEY_MASKED:
        masked = f"{key[:8]}{'*' * max(0, len(key) - 12)}{key[-4:]}"
        return (
            f"Incorrect API key provided: {masked}. You can find your API key at "
            "https://platform.openai.com/account/api-keys."
        )
    raise ValueError(f"{fault} does not echo the key")


@dataclass(frozen=True, slots=True, kw_only=True)
class Behaviour:
    """How the fake server answers one request for a model.

    Parameters
    ----------
    text
        The answer text (the ``content`` of the assistant message).
    latency_s
        Seconds to wait before answering (or before sending the fault).
    fault
        A fault to play instead of, or around, the text.
    prompt_tokens, completion_tokens
        Token counts to report in ``usage``; estimated from the text when ``None``.
    oversize_chars
        Length an ``OVERSIZED`` answer grows to.
    tool_calls
        Tool calls to return in the assistant message (chat-completions format).
    retry_after_s
        With an HTTP fault: the wait to ask for, sent as ``retry-after-ms``
        (exact) and ``retry-after`` (whole seconds, rounded up), as OpenAI does;
        ``None`` sends neither.
    """

    text: str = "ok"
    latency_s: float = 0.0
    fault: Fault | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    oversize_chars: int = 100_000
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    retry_after_s: float | None = None

    def __post_init__(self) -> None:
        if self.latency_s < 0:
            raise ConfigError(f"latency_s must be >= 0, got {self.latency_s}")
        if self.retry_after_s is not None and self.retry_after_s < 0:
            raise ConfigError(f"retry_after_s must be >= 0, got {self.retry_after_s}")
        if self.oversize_chars < 1:
            raise ConfigError(f"oversize_chars must be >= 1, got {self.oversize_chars}")


_BEHAVIOUR_KEYS = frozenset(f.name for f in fields(Behaviour))


def behaviour_from_mapping(data: Mapping[str, Any], *, where: str = "behaviour") -> Behaviour:
    """Build a ``Behaviour`` from a JSON mapping, rejecting unknown keys.

    Raises
    ------
    ConfigError
        On an unknown key, an unknown fault name or a value of the wrong type.
    """
    unknown = set(data) - _BEHAVIOUR_KEYS
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {sorted(unknown)}; valid keys: {sorted(_BEHAVIOUR_KEYS)}"
        )
    kwargs: dict[str, Any] = dict(data)
    if "fault" in kwargs and kwargs["fault"] is not None:
        try:
            kwargs["fault"] = Fault(kwargs["fault"])
        except ValueError:
            valid = ", ".join(f.value for f in Fault)
            raise ConfigError(
                f"{where}: unknown fault {kwargs['fault']!r}; valid: {valid}"
            ) from None
    if "latency_s" in kwargs:
        kwargs["latency_s"] = float(kwargs["latency_s"])
    if kwargs.get("retry_after_s") is not None:
        kwargs["retry_after_s"] = float(kwargs["retry_after_s"])
    if "tool_calls" in kwargs:
        kwargs["tool_calls"] = tuple(kwargs["tool_calls"])
    if "text" in kwargs and not isinstance(kwargs["text"], str):
        raise ConfigError(f"{where}: text must be a string")
    return Behaviour(**kwargs)


@dataclass(frozen=True, slots=True, kw_only=True)
class Script:
    """Behaviours per model name, plus queues of answers and a default.

    ``queues`` hold behaviours played once each, in order, before the model's
    fixed behaviour.
    """

    models: Mapping[str, Behaviour] = field(default_factory=dict)
    queues: Mapping[str, tuple[Behaviour, ...]] = field(default_factory=dict)
    default: Behaviour | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Script:
        """Build a script from its JSON form (see the module docstring).

        A model entry may hold ``texts`` (a list of answers played once each, in
        order) or ``steps`` (a list of whole behaviours played once each, in
        order); the rest of the entry is the behaviour used after them.

        Raises
        ------
        ConfigError
            On unknown keys or malformed entries.
        """
        unknown = set(data) - {"models", "default"}
        if unknown:
            raise ConfigError(f"script: unknown key(s) {sorted(unknown)}; valid: default, models")
        default_data = data.get("default")
        default = None if default_data is None else behaviour_from_mapping(default_data)
        models: dict[str, Behaviour] = {}
        queues: dict[str, tuple[Behaviour, ...]] = {}
        for name, entry in dict(data.get("models", {})).items():
            entry = dict(entry)
            texts = entry.pop("texts", None)
            steps = entry.pop("steps", None)
            where = f"model {name!r}"
            if texts is not None and steps is not None:
                raise ConfigError(f"{where}: give 'texts' or 'steps', not both")
            base = behaviour_from_mapping(entry, where=where)
            models[name] = base
            if texts is not None:
                queues[name] = tuple(replace(base, text=str(t)) for t in texts)
            if steps is not None:
                if not isinstance(steps, list) or not all(isinstance(x, Mapping) for x in steps):
                    raise ConfigError(f"{where}: 'steps' must be a list of behaviours")
                queues[name] = tuple(
                    behaviour_from_mapping(x, where=f"{where} step {i}")
                    for i, x in enumerate(steps)
                )
        return cls(models=models, queues=queues, default=default)

    @classmethod
    def from_file(cls, path: Path) -> Script:
        """Load a script from a JSON file.

        Raises
        ------
        ConfigError
            If the file cannot be read or is not a valid script.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read fake-provider script {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"fake-provider script {path} must hold a JSON object")
        return cls.from_mapping(data)


def render_text(behaviour: Behaviour) -> tuple[str, str]:
    """Return the answer text a behaviour sends and its ``finish_reason``."""
    text = behaviour.text
    match behaviour.fault:
        case Fault.CODE_FENCES:
            return f"```json\n{text}\n```", "stop"
        case Fault.PROSE:
            return (
                f"Sure! After looking at the data, here is my answer:\n{text}\nGood luck!",
                "stop",
            )
        case Fault.REFUSAL:
            return REFUSAL_TEXT, "stop"
        case Fault.OVERSIZED:
            unit = text or "x"
            repeats = behaviour.oversize_chars // len(unit) + 1
            return (unit * repeats)[: behaviour.oversize_chars], "length"
        case _:
            return text, "stop"


def estimate_tokens(text: str) -> int:
    """Return a deterministic token estimate: one token per four characters, at least one."""
    return max(1, (len(text) + 3) // 4)
