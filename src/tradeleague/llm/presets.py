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

Any other endpoint is a ``custom_preset``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from tradeleague.errors import ConfigError

__all__ = ["PRESETS", "ProviderPreset", "custom_preset", "preset"]

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
        The environment variable holding the key; ``None`` for servers that need
        no key (a placeholder key is sent).
    max_tokens_field
        The body field for the output-token cap.
    reasoning_off, reasoning_on
        Extra body fields sent when ``CallParams.reasoning`` is false / true.
    headers
        Extra HTTP headers sent with every request.
    """

    name: str
    base_url: str
    key_env: str | None
    max_tokens_field: MaxTokensField = "max_tokens"
    reasoning_off: Mapping[str, Any] = field(default_factory=dict)
    reasoning_on: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigError("a provider preset needs a name")
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"provider {self.name!r}: base URL must be http(s), got {self.base_url!r}"
            )

    def with_base_url(self, base_url: str) -> ProviderPreset:
        """Return this preset pointed at another base URL (a self-hosted server, a fake)."""
        return ProviderPreset(
            name=self.name,
            base_url=base_url,
            key_env=self.key_env,
            max_tokens_field=self.max_tokens_field,
            reasoning_off=self.reasoning_off,
            reasoning_on=self.reasoning_on,
            headers=self.headers,
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
            ),
            ProviderPreset(
                name="openai",
                base_url="https://api.openai.com/v1",
                key_env="OPENAI_API_KEY",
                max_tokens_field="max_completion_tokens",
            ),
            ProviderPreset(
                name="ollama",
                base_url="http://127.0.0.1:11434/v1",
                key_env=None,
                reasoning_off={"reasoning_effort": "none"},
                reasoning_on={"reasoning_effort": "medium"},
            ),
            ProviderPreset(
                name="vllm",
                base_url="http://127.0.0.1:8000/v1",
                key_env=None,
                reasoning_off=_THINKING_OFF,
                reasoning_on=_THINKING_ON,
            ),
            ProviderPreset(
                name="llamacpp",
                base_url="http://127.0.0.1:8080/v1",
                key_env=None,
                reasoning_off=_THINKING_OFF,
                reasoning_on=_THINKING_ON,
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
) -> ProviderPreset:
    """Return a preset for any other OpenAI-compatible endpoint.

    The keyless presets (``ollama``, ``vllm``, ``llamacpp``) still take a key
    passed explicitly with each call, for a server started with ``--api-key``.
    """
    return ProviderPreset(
        name=name,
        base_url=base_url,
        key_env=key_env,
        max_tokens_field=max_tokens_field,
        reasoning_off=dict(reasoning_off or {}),
        reasoning_on=dict(reasoning_on or {}),
    )
