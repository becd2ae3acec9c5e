"""Fixtures of the agent tests: a fake provider on loopback, a gateway on it, turns."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from tradeleague.agents.base import Turn
from tradeleague.calls import CallParams, Message
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.testing.fake_provider import FakeProvider

AGENT_KEY = "sk-agents-test-0000"
FAST = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=10.0)
"""For answers that must come: a deadline no loaded machine comes near."""
CUT = CallParams(temperature=0.3, max_tokens=320, reasoning=False, timeout_s=0.8)
"""For turns that must time out: only ever against a model that hangs far past it."""
PROMPT = (Message("system", "You trade."), Message("user", "Up or down?"))


def make_turn(
    agent: str = "a1",
    *,
    round: str = "r1",
    season: str = "s1",
    params: CallParams = FAST,
    view: object | None = None,
) -> Turn:
    """Return a direction-style turn for ``agent``."""
    return Turn(
        format="direction",
        key=CallKey(season, round, agent, 0),
        messages=PROMPT,
        params=params,
        view=view,
    )


@pytest.fixture
def cut() -> CallParams:
    """The short deadline of a turn that must time out (``CUT``)."""
    return CUT


@pytest.fixture
def turn() -> Callable[..., Turn]:
    """Build a turn (see ``make_turn``)."""
    return make_turn


@pytest.fixture
async def fake() -> AsyncIterator[FakeProvider]:
    """A started fake provider that requires ``AGENT_KEY``."""
    async with FakeProvider(require_key=AGENT_KEY) as server:
        yield server


@pytest.fixture
async def gateway(fake: FakeProvider) -> AsyncIterator[tuple[Gateway, list[CallRecord]]]:
    """A gateway with the fake as ``openrouter`` (key in a private environment) and its log."""
    records: list[CallRecord] = []
    provider = OpenAICompatProvider(
        preset("openrouter").with_base_url(fake.url),
        environ={"OPENROUTER_API_KEY": AGENT_KEY},
    )
    async with Gateway([provider], recorder=records.append) as gw:
        yield gw, records


@pytest.fixture
def agent_key() -> str:
    """The key the fake provider accepts."""
    return AGENT_KEY
