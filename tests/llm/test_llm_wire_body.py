"""The bytes sent are the request body's compact JSON, messages encoded once a round (C-2)."""

from __future__ import annotations

import json

import pytest

from tradeleague.calls import CallParams, Message
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import ProviderPreset, custom_preset, preset
from tradeleague.llm.types import ChatRequest

_MARK = "\x00tradeleague-messages\x00"

_SYSTEM = Message("system", "You are a trader. Réponds en JSON « strict » 📈")
_USER = Message("user", 'BTC "quoted" \\ back\nslash\t' + "x" * 500)
_TOOL_ASK = Message(
    "assistant", "", tool_calls=({"id": "c1", "type": "function", "function": {"a": 1}},)
)
_TOOL_ASK_REORDERED = Message(
    "assistant", "", tool_calls=({"function": {"a": 1.0}, "type": "function", "id": "c1"},)
)


def _requests() -> list[ChatRequest]:
    plain = CallParams(temperature=0.3, max_tokens=320)
    thinking = CallParams(temperature=0.7, max_tokens=10, reasoning=True)
    return [
        ChatRequest(model="m", messages=(_SYSTEM, _USER), params=plain),
        ChatRequest(model="m2", messages=(_SYSTEM, _USER), params=thinking),
        ChatRequest(
            model="m",
            messages=(_SYSTEM, Message("user", "other")),
            params=plain,
            json_schema={"type": "object", "properties": {"x": {"type": "number"}}},
        ),
        ChatRequest(model="m", messages=(_SYSTEM, _USER), params=plain),
        ChatRequest(
            model="m",
            messages=(_USER, _TOOL_ASK, Message("tool", "42", tool_call_id="c1")),
            params=plain,
            tools=({"type": "function", "function": {"name": "f"}},),
        ),
        ChatRequest(model="m", messages=(_USER, _TOOL_ASK), params=plain),
        # equal to the one above, yet encoded differently (key order, 1.0)
        ChatRequest(model="m", messages=(_USER, _TOOL_ASK_REORDERED), params=plain),
        ChatRequest(model=_MARK, messages=(_SYSTEM,), params=plain),
        ChatRequest(model="m", messages=(Message("user", _MARK),), params=plain),
        ChatRequest(model="m", messages=(Message("user", '"' + _MARK),), params=plain),
        ChatRequest(model="m", messages=(), params=plain),
    ]


@pytest.mark.parametrize(
    "provider_preset",
    [
        custom_preset("plain", "http://127.0.0.1:9"),
        custom_preset(
            "extras",
            "http://127.0.0.1:9",
            max_tokens_field="max_completion_tokens",
            reasoning_on={"reasoning": {"effort": "high"}},
            reasoning_off={"messages": [{"role": "system", "content": _MARK}]},
        ),
        preset("openrouter"),
    ],
    ids=lambda p: p.name,
)
def test_wire_body_is_the_request_bodys_compact_json(provider_preset: ProviderPreset) -> None:
    """C-5: the bytes sent equal ``request_body``'s JSON, in any order of requests."""
    provider = OpenAICompatProvider(provider_preset)
    for request in _requests() + _requests()[::-1]:
        expected = json.dumps(provider.request_body(request), separators=(",", ":")).encode()
        assert provider.wire_body(request) == expected
