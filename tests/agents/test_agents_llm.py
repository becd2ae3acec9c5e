"""The LLM agent: one call through the gateway, faults as outcomes (C-2, C-5, W-VAL-8)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tradeleague.agents.base import Agent, Turn
from tradeleague.agents.llm import LlmAgent, ReplayMissed, SealedKeyReader
from tradeleague.calls import CallParams, Outcome
from tradeleague.keys import KeyVault, MasterKey, generate_master_key
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.records import CallRecord, MissReason
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault

ANSWER = '{"direction": "up", "rationale": "trend"}'


def _vault() -> KeyVault:
    return KeyVault([MasterKey.from_text(generate_master_key())])


async def test_llm_agent_answers_with_raw_text_and_its_record(
    fake: FakeProvider,
    gateway: tuple[Gateway, list[CallRecord]],
    turn: Callable[..., Turn],
) -> None:
    """C-4, C-5: the text comes back exactly as sent, with latency and the call's record."""
    gw, log = gateway
    raw = "  Sure!\n```json\n" + ANSWER + "\n```  "
    fake.enqueue("m-up", Behaviour(text=raw, latency_s=0.05))
    agent = LlmAgent(name="a1", model="m-up", provider="openrouter", gateway=gw)
    assert isinstance(agent, Agent)
    reply = await agent.answer(turn("a1"))
    assert reply.outcome is Outcome.ANSWERED
    assert reply.text == raw
    assert reply.latency_ms >= 50
    assert reply.records == tuple(log)
    assert reply.records[0].key == turn("a1").key
    sent = fake.requests_for("m-up")[0]
    assert [m.content for m in sent.messages] == [m.content for m in turn("a1").messages]
    assert sent.body["temperature"] == 0.3
    assert "response_format" not in sent.body  # unconstrained by default


async def test_llm_agent_constrained_sends_the_turns_schema(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """C-2: with ``constrain`` the turn's schema goes out as ``response_format``, in
    OpenAI's strict subset (every property required, no other allowed)."""
    gw, _ = gateway
    fake.script_model("m", ANSWER)
    schema = {"type": "object", "properties": {"direction": {"enum": ["up", "down"]}}}
    agent = LlmAgent(name="a1", model="m", provider="openrouter", gateway=gw, constrain=True)
    base = turn("a1")
    ask = Turn(
        format=base.format, key=base.key, messages=base.messages, params=base.params,
        json_schema=schema,
    )  # fmt: skip
    await agent.answer(ask)
    sent = fake.requests[0].body["response_format"]["json_schema"]
    assert sent["schema"] == {**schema, "required": ["direction"], "additionalProperties": False}
    assert sent["strict"] is True


@pytest.mark.parametrize(
    ("behaviour", "outcome"),
    [
        (Behaviour(fault=Fault.HANG), Outcome.TIMEOUT),
        (Behaviour(fault=Fault.UNAUTHORIZED), Outcome.KEY_REJECTED),
        (Behaviour(fault=Fault.NOT_FOUND), Outcome.MODEL_NOT_FOUND),
        (Behaviour(fault=Fault.RATE_LIMITED), Outcome.RATE_LIMITED),
        (Behaviour(fault=Fault.SERVER_ERROR), Outcome.PROVIDER_ERROR),
    ],
)
async def test_llm_agent_turns_faults_into_outcomes(
    fake: FakeProvider,
    gateway: tuple[Gateway, list[CallRecord]],
    turn: Callable[..., Turn],
    behaviour: Behaviour,
    outcome: Outcome,
    cut: CallParams,
) -> None:
    """W-VAL-8: a rejected key or model, an error or no answer in time is an outcome."""
    gw, _ = gateway
    fake.script_model("m", behaviour)
    reply = await LlmAgent(name="a1", model="m", provider="openrouter", gateway=gw).answer(
        turn("a1", params=cut)  # a short deadline: only the hang needs one, no answer is due
    )
    assert reply.outcome is outcome
    assert reply.text is None
    assert reply.records[0].outcome is outcome


async def test_llm_agent_opens_a_sealed_key_at_call_time(
    fake: FakeProvider,
    gateway: tuple[Gateway, list[CallRecord]],
    turn: Callable[..., Turn],
    agent_key: str,
) -> None:
    """C-9: the owner's sealed key is opened only for the call and sent as the bearer."""
    gw, _ = gateway
    fake.script_model("m", ANSWER)
    vault = _vault()
    reader = SealedKeyReader(vault, "owner-1", vault.seal("owner-1", agent_key))
    assert agent_key not in repr(reader)
    agent = LlmAgent(name="a1", model="m", provider="openrouter", gateway=gw, api_key=reader)
    assert agent_key not in repr(agent)
    reply = await agent.answer(turn("a1"))
    assert reply.outcome is Outcome.ANSWERED
    assert fake.requests[0].authorization == f"Bearer {agent_key}"


async def test_llm_agent_unreadable_sealed_key_is_key_unreadable(
    fake: FakeProvider,
    gateway: tuple[Gateway, list[CallRecord]],
    turn: Callable[..., Turn],
    agent_key: str,
) -> None:
    """W-VAL-8: a key sealed for another owner, or under a lost master key, is
    ``key_unreadable`` and nothing is sent to the provider."""
    gw, log = gateway
    fake.script_model("m", ANSWER)
    vault = _vault()
    for reader in (
        SealedKeyReader(vault, "owner-2", vault.seal("owner-1", agent_key)),
        SealedKeyReader(_vault(), "owner-1", vault.seal("owner-1", agent_key)),
    ):
        agent = LlmAgent(name="a1", model="m", provider="openrouter", gateway=gw, api_key=reader)
        reply = await agent.answer(turn("a1"))
        assert reply.outcome is Outcome.KEY_UNREADABLE
        assert reply.text is None
        assert "KeyUnreadable" in (reply.records[0].error or "")
    assert fake.requests == []
    assert len(log) == 2


async def test_llm_agent_replays_the_recorded_reply(
    fake: FakeProvider,
    gateway: tuple[Gateway, list[CallRecord]],
    turn: Callable[..., Turn],
    cut: CallParams,
) -> None:
    """C-5: under the replay gateway the agent gets the recorded text, outcome and latency."""
    gw, log = gateway
    fake.enqueue("m", Behaviour(text=ANSWER, latency_s=0.03), Behaviour(fault=Fault.HANG))
    live = LlmAgent(name="a1", model="m", provider="openrouter", gateway=gw)
    first = await live.answer(turn("a1", round="r1"))
    second = await live.answer(turn("a1", round="r2", params=cut))
    assert second.outcome is Outcome.TIMEOUT
    replay = ReplayGateway(RecordedAnswers(log))
    again = LlmAgent(name="a1", model="m", provider="openrouter", gateway=replay)
    sent = len(fake.requests)
    assert await again.answer(turn("a1", round="r1")) == first
    assert await again.answer(turn("a1", round="r2", params=cut)) == second
    assert len(fake.requests) == sent  # nothing live


async def test_llm_agent_replay_miss_stops_loudly(turn: Callable[..., Turn]) -> None:
    """C-5: a call the record does not hold is an error, never a silent live call."""
    agent = LlmAgent(
        name="a1", model="m", provider="openrouter", gateway=ReplayGateway(RecordedAnswers([]))
    )
    with pytest.raises(ReplayMissed, match="not_recorded") as caught:
        await agent.answer(turn("a1"))
    assert caught.value.miss.reason is MissReason.NOT_RECORDED
