"""Presets: one request shape, each provider's reasoning switch and key variable (C-2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tradeleague.calls import CallParams, Outcome
from tradeleague.errors import ConfigError
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider, outcome_for_status
from tradeleague.llm.presets import PRESETS, custom_preset, preset
from tradeleague.testing.fake_provider import FakeProvider


def test_builtin_presets() -> None:
    """C-2: OpenRouter, OpenAI, Ollama, vLLM and llama.cpp are built in."""
    assert set(PRESETS) == {"openrouter", "openai", "ollama", "vllm", "llamacpp"}
    assert preset("openrouter").base_url == "https://openrouter.ai/api/v1"
    assert preset("openrouter").key_env == "OPENROUTER_API_KEY"
    assert preset("openai").key_env == "OPENAI_API_KEY"
    assert preset("ollama").key_env is None
    with pytest.raises(ConfigError, match="valid: llamacpp, ollama, openai, openrouter, vllm"):
        preset("anthropic")
    with pytest.raises(ConfigError):
        custom_preset("x", "ftp://example")


@pytest.mark.parametrize(
    ("name", "reasoning", "expected"),
    [
        ("openrouter", False, {"reasoning": {"enabled": False}, "max_tokens": 320}),
        ("openrouter", True, {"reasoning": {"enabled": True}, "max_tokens": 320}),
        ("openai", False, {"max_completion_tokens": 320}),
        ("ollama", False, {"reasoning_effort": "none", "max_tokens": 320}),
        ("vllm", False, {"chat_template_kwargs": {"enable_thinking": False}, "max_tokens": 320}),
        (
            "llamacpp",
            False,
            {"chat_template_kwargs": {"enable_thinking": False}, "max_tokens": 320},
        ),
    ],
)
async def test_each_preset_sends_its_switches_over_http(
    ask: Callable[..., Call], name: str, reasoning: bool, expected: dict[str, object]
) -> None:
    """C-2, D-ASK-2: the same parameters for all, plus the preset's own reasoning switch."""
    async with FakeProvider() as fake:
        fake.script_model("m", "ok")
        provider = OpenAICompatProvider(
            preset(name).with_base_url(fake.url),
            environ={"OPENAI_API_KEY": "k", "OPENROUTER_API_KEY": "k"},
        )
        params = CallParams(temperature=0.3, max_tokens=320, reasoning=reasoning, timeout_s=2)
        async with Gateway([provider]) as gw:
            record = await gw.call(ask("m", params=params, provider=name))
        assert record.outcome is Outcome.ANSWERED
        (sent,) = fake.requests
    extra = {k: v for k, v in sent.body.items() if k not in {"model", "messages", "temperature"}}
    assert extra == expected
    assert sent.body["temperature"] == 0.3


async def test_json_schema_is_sent_as_response_format(ask: Callable[..., Call]) -> None:
    """C-2: a schema constrains the answer through ``response_format``."""
    schema = {"type": "object", "properties": {"direction": {"enum": ["up", "down"]}}}
    async with FakeProvider() as fake:
        fake.script_model("m", '{"direction": "up"}')
        provider = OpenAICompatProvider(custom_preset("house", fake.url))
        call = ask("m", provider="house")
        call = Call(
            request=type(call.request)(
                model="m", messages=call.request.messages, params=call.request.params,
                json_schema=schema,
            ),
            provider="house",
            key=call.key,
        )  # fmt: skip
        async with Gateway([provider]) as gw:
            record = await gw.call(call)
        (sent,) = fake.requests
    assert record.json_schema == schema
    strict = {**schema, "required": ["direction"], "additionalProperties": False}
    assert sent.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": strict, "strict": True},
    }
    assert sent.authorization is None  # a keyless endpoint gets no Authorization header


@pytest.mark.parametrize(
    ("status", "message", "outcome"),
    [
        (402, "", Outcome.KEY_REJECTED),
        (400, "gpt-9 is not a valid model ID", Outcome.MODEL_NOT_FOUND),
        (400, "bad temperature", Outcome.PROVIDER_ERROR),
        (408, "", Outcome.TIMEOUT),
        (502, "", Outcome.PROVIDER_ERROR),
    ],
)
def test_status_mapping(status: int, message: str, outcome: Outcome) -> None:
    """W-VAL-8: the documented mapping of statuses the fake does not script."""
    assert outcome_for_status(status, message) is outcome


async def test_unknown_provider_is_a_config_error(ask: Callable[..., Call]) -> None:
    """A call naming a provider the gateway does not have fails before anything is sent."""
    async with Gateway([]) as gw:
        with pytest.raises(ConfigError, match="unknown provider 'openrouter'"):
            await gw.call(ask("m"))
