"""Where each OpenAI-compatible provider lives and what it needs (SPEC C-2).

Every model is called through the same chat-completions request; a preset only
names the base URL, the environment variable holding the key, the name of the
output-token cap, and the extra body fields that switch reasoning off or on.

Reasoning off, per preset (``reasoning_off``):

- ``openrouter``: ``{"reasoning": {"enabled": false}}`` (OpenRouter's unified
  reasoning switch).
- ``openai``: nothing. Chat models have no reasoning to switch off; OpenAI's
  reasoning models cannot switch it off entirely, so a roster that uses one
  should make a custom preset with ``{"reasoning_effort": "minimal"}`` and say
  so in its disclosures (SPEC C-12). The cap is sent as
  ``max_completion_tokens``, the only name reasoning models accept.
- ``ollama``: ``{"reasoning_effort": "none"}``: Ollama's OpenAI-compatible
  endpoint turns thinking off only for this value (its native ``think`` field
  is not read there).
- ``vllm`` and ``llamacpp``: ``{"chat_template_kwargs": {"enable_thinking":
  false}}``, the switch hybrid-thinking chat templates (Qwen3 and kin) read.

Structured output, per preset (``dialect`` and ``default_output``; the body
fields are in :mod:`tradeleague.llm.dialects`): ``openai`` and ``openrouter``
speak OpenAI's ``response_format`` (``json_schema``, strict, by default; OpenRouter
passes it to models that take it and drops it for the others); ``llamacpp``
sends ``json_object`` with the schema, which both llama.cpp's server and
llama-cpp-python's enforce; ``vllm`` sends ``guided_json``; ``ollama`` sends the
schema in ``response_format``, which its OpenAI-compatible endpoint passes on as
its ``format``.

Any other endpoint is a ``custom_preset``: OpenAI's dialect, and plain text
unless an agent asks for more (``output=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal
from urllib.parse import urlsplit

from tradeleague.errors import ConfigError
from tradeleague.llm.dialects import SUPPORTED, Dialect, Output

__all__ = ["PRESETS", "ProviderPreset", "custom_preset", "origin", "preset"]

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderPreset:
    """How to reach one OpenAI-compatible provider.

    Parameters
    ----------
    name
        The provider's name in records and configuration (``openrouter``...).
    base_url
        The chat-completions base URL (ending in ``/v1`` or the provider's
        equivalent).
    key_env
        The environment variable holding the key, sent only to this base URL;
        ``None`` for servers that need no key (no ``Authorization`` header is sent).
    max_tokens_field
        The body field for the output-token cap.
    reasoning_off, reasoning_on
        Extra body fields sent when ``CallParams.reasoning`` is false / true.
    headers
        Extra HTTP headers sent with every request.
    dialect
        How the endpoint spells structured output (``tradeleague.llm.dialects``).
    default_output
        The structured output an agent on this endpoint asks for unless it names one.
    """

    name: str
    base_url: str
    key_env: str | None
    max_tokens_field: MaxTokensField = "max_tokens"
    reasoning_off: Mapping[str, Any] = field(default_factory=dict)
    reasoning_on: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    dialect: Dialect = "openai"
    default_output: Output = "text"

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigError("a provider preset needs a name")
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"provider {self.name!r}: base URL must be http(s), got {self.base_url!r}"
            )
        if self.dialect not in SUPPORTED:
            raise ConfigError(f"provider {self.name!r}: unknown dialect {self.dialect!r}")
        if self.default_output not in SUPPORTED[self.dialect]:
            raise ConfigError(
                f"provider {self.name!r}: the {self.dialect} dialect cannot send "
                f"output={self.default_output}"
            )

    def with_base_url(
        self, base_url: str, *, name: str | None = None, keep_key: bool = True
    ) -> ProviderPreset:
        """Return this preset pointed at another base URL (a self-hosted server, a fake).

        Parameters
        ----------
        base_url
            The other endpoint.
        name
            The copy's provider name (this preset's by default).
        keep_key
            Keep this preset's key variable; false: the copy sends no key of its own.
        """
        return replace(
            self,
            name=self.name if name is None else name,
            base_url=base_url,
            key_env=self.key_env if keep_key else None,
        )


_THINKING_OFF = {"chat_template_kwargs": {"enable_thinking": False}}
_THINKING_ON = {"chat_template_kwargs": {"enable_thinking": True}}

PRESETS: Mapping[str, ProviderPreset] = MappingProxyType(
    {
        p.name: p
        for p in (
            ProviderPreset(
                name="openrouter",
                base_url="https://openrouter.ai/api/v1",
                key_env="OPENROUTER_API_KEY",
                reasoning_off={"reasoning": {"enabled": False}},
                reasoning_on={"reasoning": {"enabled": True}},
                default_output="json_schema",
            ),
            ProviderPreset(
                name="openai",
                base_url="https://api.openai.com/v1",
                key_env="OPENAI_API_KEY",
                max_tokens_field="max_completion_tokens",
                default_output="json_schema",
            ),
            ProviderPreset(
                name="ollama",
                base_url="http://127.0.0.1:11434/v1",
                key_env=None,
                reasoning_off={"reasoning_effort": "none"},
                reasoning_on={"reasoning_effort": "medium"},
                dialect="ollama",
                default_output="json_schema",
            ),
            ProviderPreset(
                name="vllm",
                base_url="http://127.0.0.1:8000/v1",
                key_env=None,
                reasoning_off=_THINKING_OFF,
                reasoning_on=_THINKING_ON,
                dialect="vllm",
                default_output="json_schema",
            ),
            ProviderPreset(
                name="llamacpp",
                base_url="http://127.0.0.1:8080/v1",
                key_env=None,
                reasoning_off=_THINKING_OFF,
                reasoning_on=_THINKING_ON,
                dialect="llamacpp",
                default_output="json_schema",
            ),
        )
    }
)
"""The built-in presets, by name."""


def preset(name: str) -> ProviderPreset:
    """Return the built-in preset called ``name``.

    Raises
    ------
    ConfigError
        If there is none; the message lists the valid names.
    """
    try:
        return PRESETS[name]
    except KeyError:
        valid = ", ".join(sorted(PRESETS))
        raise ConfigError(f"unknown provider preset {name!r}; valid: {valid}") from None


def custom_preset(
    name: str,
    base_url: str,
    *,
    key_env: str | None = None,
    max_tokens_field: MaxTokensField = "max_tokens",
    reasoning_off: Mapping[str, Any] | None = None,
    reasoning_on: Mapping[str, Any] | None = None,
    dialect: Dialect = "openai",
    default_output: Output = "text",
) -> ProviderPreset:
    """Return a preset for any other OpenAI-compatible endpoint.

    With no ``key_env`` no key is sent (no ``Authorization`` header); a key
    passed explicitly with a call is sent, for a server started with ``--api-key``.
    """
    return ProviderPreset(
        name=name,
        base_url=base_url,
        key_env=key_env,
        max_tokens_field=max_tokens_field,
        reasoning_off=dict(reasoning_off or {}),
        reasoning_on=dict(reasoning_on or {}),
        dialect=dialect,
        default_output=default_output,
    )


def origin(url: str) -> tuple[str, str, int]:
    """Return the origin of an http(s) URL: scheme, host (lower case) and port.

    A preset's key is sent only to its own origin.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, host, port or (443 if scheme == "https" else 80)
