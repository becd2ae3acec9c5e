"""Keys only where they belong (issue 25): the provider records every ``Authorization`` it got.

With every preset's key variable set, agents on a loopback server send no key
unless their spec names one with ``key_env=``; a preset named at another URL
does not carry its key there; a keyless server needs no key at all (no
``key_missing``). A preset's key goes to the preset's own host only.
"""

from __future__ import annotations

from typing import Any

import pytest

from tradeleague.agents.base import Turn
from tradeleague.agents.spec import build_agent, endpoint_for, parse_agent_spec, providers_for
from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.presets import PRESETS
from tradeleague.llm.records import CallKey
from tradeleague.testing.fake_provider import FakeProvider

ENVIRON = {
    "OPENAI_API_KEY": "sk-openai-test-0001",
    "OPENROUTER_API_KEY": "sk-or-test-0002",
    "MY_KEY": "sk-mine-test-0003",
}
TURN = Turn(
    format="direction",
    key=CallKey("s", "r1", "a", 0),
    messages=(Message("user", "Up or down?"),),
    params=CallParams(timeout_s=20.0),
)


def _no_baselines(name: str) -> Any:
    raise AssertionError(name)


async def _sent_authorization(spec_text: str, environ: dict[str, str]) -> tuple[Outcome, Any]:
    with FakeProvider() as fake:
        fake.script_model("stub", '{"direction": "up", "rationale": "r"}')
        spec = parse_agent_spec(spec_text.replace("URL", fake.url))
        async with Gateway(providers_for([spec], environ=environ)) as gateway:
            agent = build_agent(
                spec,
                gateway=gateway,
                format_name="direction",
                baseline_factory=_no_baselines,
                environ=environ,
            )
            reply = await agent.answer(TURN)
        (request,) = fake.requests
    return reply.outcome, request.authorization


@pytest.mark.parametrize(
    ("spec", "bearer"),
    [
        ("openai:stub@URL", None),
        ("openai:stub@openai=URL", None),
        ("openai:stub@openrouter=URL", None),
        ("openai:stub@llamacpp=URL", None),
        ("openai:stub@URL,key_env=MY_KEY", "Bearer sk-mine-test-0003"),
        ("openai:stub@openai=URL,key_env=OPENAI_API_KEY", "Bearer sk-openai-test-0001"),
    ],
)
async def test_a_key_goes_only_where_the_spec_sends_it(spec: str, bearer: str | None) -> None:
    """Issue 25: a custom URL (or a preset at one) gets a key only when ``key_env`` names it."""
    outcome, sent = await _sent_authorization(spec, ENVIRON)
    assert (outcome, sent) == (Outcome.ANSWERED, bearer)


async def test_a_keyless_loopback_server_needs_no_key() -> None:
    """Issue 25: with no key variable set at all, a loopback server is answered: no
    ``key_missing``, no header."""
    outcome, sent = await _sent_authorization("openai:stub@openai=URL", {})
    assert (outcome, sent) == (Outcome.ANSWERED, None)


def test_a_presets_key_goes_to_its_own_host_only() -> None:
    """Issue 25: the preset by name, or its own URL, keeps its key variable; the same preset
    at any other origin (another host, port or scheme) has none."""
    for text in ("openai:m", "openai:m@openai", "openai:m@https://api.openai.com/v1/"):
        assert endpoint_for(parse_agent_spec(text)).key_env == "OPENAI_API_KEY"
    assert (
        endpoint_for(parse_agent_spec("openai:m@openai=https://api.openai.com/v1"))
        is (PRESETS["openai"])
    )
    for where in (
        "openai=http://api.openai.com/v1",
        "openai=https://api.openai.com:8443/v1",
        "openai=https://api.openai.com.example/v1",
        "openrouter=http://127.0.0.1:9/api/v1",
    ):
        assert endpoint_for(parse_agent_spec(f"openai:m@{where}")).key_env is None, where
