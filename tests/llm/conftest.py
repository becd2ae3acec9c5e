"""Fixtures of the model-gateway tests: a fake provider on loopback and a gateway on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from tradeleague.calls import CallParams, Message
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.http_pool import MAX_IDLE_S
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest
from tradeleague.testing.fake_provider import FakeProvider

TEST_KEY = "sk-test-0000"
FAST = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=10.0)
"""For answers that must come: a deadline no loaded machine comes near."""
CUT = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=0.6)
"""For calls that must time out: only ever against a model that hangs far past it."""


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    """A started fake provider that requires ``TEST_KEY``."""
    with FakeProvider(require_key=TEST_KEY) as server:
        yield server


def _openrouter_on(
    url: str, *, max_connections: int = 64, max_idle_s: float = MAX_IDLE_S
) -> OpenAICompatProvider:
    return OpenAICompatProvider(
        preset("openrouter").with_base_url(url),
        max_connections=max_connections,
        environ={"OPENROUTER_API_KEY": TEST_KEY},
        max_idle_s=max_idle_s,
    )


@pytest.fixture
async def gateway(fake: FakeProvider) -> AsyncIterator[tuple[Gateway, list[CallRecord]]]:
    """A gateway with the fake as ``openrouter``, and the list its recorder fills."""
    records: list[CallRecord] = []
    async with Gateway([_openrouter_on(fake.url)], recorder=records.append) as gw:
        yield gw, records


@pytest.fixture
def provider_on() -> Callable[..., OpenAICompatProvider]:
    """Build the OpenRouter preset pointed at a URL, its key in a private environment."""
    return _openrouter_on


@pytest.fixture
def cut() -> CallParams:
    """The short deadline of a call that must time out (``CUT``)."""
    return CUT


@pytest.fixture
def ask() -> Callable[..., Call]:
    """Build a call of a model with a system and a user message."""
    return _ask


def _ask(
    model: str,
    *,
    agent: str = "a1",
    params: CallParams = FAST,
    provider: str = "openrouter",
    text: str = "Up or down?",
) -> Call:
    return Call(
        request=ChatRequest(
            model=model,
            messages=(Message("system", "You trade."), Message("user", text)),
            params=params,
        ),
        provider=provider,
        key=CallKey("s1", "r1", agent, 0),
    )
