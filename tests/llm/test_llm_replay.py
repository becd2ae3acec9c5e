"""Recorded answers: a re-run gives identical replies and never calls a model (C-5, DESIGN 5)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.records import CallKey, CallRecord, MissReason, ReplayMiss
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.token_prices import Price, PriceTable
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault


async def _live_round(
    fake: FakeProvider,
    provider_on: Callable[..., OpenAICompatProvider],
    calls: list[Call],
) -> tuple[list[CallRecord], list[CallRecord]]:
    fake.script_model("good", Behaviour(text='{"direction": "up"}', latency_s=0.05))
    fake.script_model("fenced", Behaviour(text='{"direction": "down"}', fault=Fault.CODE_FENCES))
    fake.script_model("hang", Behaviour(fault=Fault.HANG))
    fake.script_model("limited", Behaviour(fault=Fault.RATE_LIMITED))
    log: list[CallRecord] = []
    prices = PriceTable({"good": Price.usd_per_million("0.15", "0.60")})
    async with Gateway([provider_on(fake.url)], prices=prices, recorder=log.append) as gw:
        finals = await gw.call_all(calls)
    return finals, log


async def test_replay_gives_identical_replies_without_calling(
    fake: FakeProvider,
    provider_on: Callable[..., OpenAICompatProvider],
    ask: Callable[..., Call],
    cut: CallParams,
) -> None:
    """C-5, D-RND-3: text, outcome, tokens, cost and latencies replay identically."""
    calls = [ask(m, agent=m) for m in ("good", "fenced", "hang", "limited", "missing-model")]
    calls[2] = ask("hang", agent="hang", params=cut)  # the only one that must time out
    finals, log = await _live_round(fake, provider_on, calls)
    assert [r.outcome for r in finals] == [
        Outcome.ANSWERED,
        Outcome.ANSWERED,
        Outcome.TIMEOUT,
        Outcome.RATE_LIMITED,
        Outcome.MODEL_NOT_FOUND,
    ]
    assert finals[0].cost_micros is not None
    assert finals[0].cost_micros > 0
    sent_live = len(fake.requests)
    stored = [json.dumps(r.to_payload()) for r in log]  # as the event store keeps them
    answers = RecordedAnswers(CallRecord.from_payload(json.loads(s)) for s in stored)
    replayed_log: list[CallRecord] = []
    replay = ReplayGateway(answers, recorder=replayed_log.append)
    replayed = await replay.call_all(calls)
    assert replayed == finals
    assert [r.reply for r in replayed if isinstance(r, CallRecord)] == [r.reply for r in finals]

    def order(r: CallRecord) -> tuple[str, int]:
        return r.key.agent, r.attempt

    assert sorted(replayed_log, key=order) == sorted(log, key=order)
    assert len(fake.requests) == sent_live  # replay sent nothing


async def test_missing_record_is_an_error_value(ask: Callable[..., Call]) -> None:
    """C-5: a call with no record is a ``ReplayMiss``, never a live call."""
    replay = ReplayGateway(RecordedAnswers([]))
    miss = await replay.call(ask("good"))
    assert isinstance(miss, ReplayMiss)
    assert miss.reason is MissReason.NOT_RECORDED
    assert miss.key == CallKey("s1", "r1", "a1", 0)


async def test_changed_request_is_a_miss(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """C-3, C-5: a prompt that differs from the recorded one cannot reuse its answer."""
    call = ask("good")
    _, log = await _live_round(fake, provider_on, [call])
    replay = ReplayGateway(RecordedAnswers(log))
    changed = replace(
        call, request=replace(call.request, messages=(Message("user", "another prompt"),))
    )
    miss = await replay.call(changed)
    assert isinstance(miss, ReplayMiss)
    assert miss.reason is MissReason.REQUEST_DIFFERS
    assert "messages" in miss.detail
    assert await replay.call(call) == log[-1]


async def test_cut_off_log_is_a_miss(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """C-5: a key whose records end before the final attempt is not replayed."""
    call = ask("good")
    _, log = await _live_round(fake, provider_on, [call])
    replay = ReplayGateway(RecordedAnswers([replace(log[0], final=False)]))
    miss = await replay.call(call)
    assert isinstance(miss, ReplayMiss)
    assert miss.reason is MissReason.INCOMPLETE
