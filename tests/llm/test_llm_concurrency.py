"""Fan-out, per-provider limits, queueing against the deadline, retries (C-2, D-RND-3)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from tradeleague.calls import CallParams, Outcome
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider, retry_after
from tradeleague.llm.records import CallRecord
from tradeleague.llm.types import ChatRequest, ModelReply
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault


class CountingProvider:
    """Wrap a provider and count the calls in flight (the real HTTP call happens inside)."""

    def __init__(self, inner: OpenAICompatProvider) -> None:
        self.name = inner.name
        self.inner = inner
        self.in_flight = 0
        self.peak = 0

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            return await self.inner.complete(request, api_key)
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        await self.inner.aclose()


def with_params(call: Call, **changes: Any) -> Call:
    request = replace(call.request, params=replace(call.request.params, **changes))
    return replace(call, request=request)


async def test_concurrency_limit_holds_per_provider(
    fake: FakeProvider,
    provider_on: Callable[..., OpenAICompatProvider],
    ask: Callable[..., Call],
) -> None:
    """C-2: at most ``limit`` calls in flight per provider; the others queue, then answer."""
    fake.script_model("m", Behaviour(text="ok", latency_s=0.1))
    counting = CountingProvider(provider_on(fake.url))
    async with Gateway([counting], limits={"openrouter": 3}) as gw:
        calls = [ask("m", agent=f"a{i}") for i in range(9)]
        records = await gw.call_all(calls)
    assert [r.outcome for r in records] == [Outcome.ANSWERED] * 9
    assert counting.peak == 3
    assert [r.key.agent for r in records] == [f"a{i}" for i in range(9)]
    assert max(r.queued_ms for r in records) >= 180  # the last three waited two turns


async def test_slow_agent_does_not_delay_the_others(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """D-RND-3, C-2: each reply is ready when its own model answers, not the slowest."""
    fake.script_model("slow", Behaviour(text="late", latency_s=2.0))
    fake.script_model("fast", Behaviour(text="quick", latency_s=0.05))
    finished: dict[str, float] = {}
    loop = asyncio.get_running_loop()

    def note(record: CallRecord) -> None:
        finished[record.key.agent] = loop.time()

    async with Gateway([provider_on(fake.url)], recorder=note) as gw:
        start = loop.time()
        calls = [ask("slow", agent="slow")] + [ask("fast", agent=f"f{i}") for i in range(20)]
        records = await gw.call_all(calls)
    assert all(r.outcome is Outcome.ANSWERED for r in records)
    fast = [finished[f"f{i}"] - start for i in range(20)]
    slow = finished["slow"] - start
    assert slow >= 2.0
    # A fast call that waited for the slow one would end at or after the slow one's
    # 2 s server latency; under that, even 20 calls on a loaded machine fit.
    assert max(fast) < 2.0
    assert max(fast) < slow
    assert all(r.elapsed_ms < 2000 for r in records[1:])
    assert records[0].elapsed_ms >= 2000
    assert len({r.asked_at for r in records}) == 1  # one ask instant for the round


async def test_call_queued_past_the_deadline_times_out_unsent(
    fake: FakeProvider,
    provider_on: Callable[..., OpenAICompatProvider],
    ask: Callable[..., Call],
    cut: CallParams,
) -> None:
    """D-RND-3: queueing counts against the deadline; a call never sent is ``timeout``."""
    fake.script_model("m", Behaviour(fault=Fault.HANG))
    async with Gateway([provider_on(fake.url)], limits={"openrouter": 1}) as gw:
        first, second = await gw.call_all([ask("m", agent=a, params=cut) for a in "ab"])
    assert first.outcome is second.outcome is Outcome.TIMEOUT
    assert second.latency_ms == 0
    assert second.elapsed_ms >= 600
    assert second.queued_ms > 500
    assert second.error is not None
    assert "never sent" in second.error
    assert len(fake.requests) == 1


async def test_retry_inside_the_deadline_when_allowed(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """C-5, T-CYC-9: a format that allows a retry gets it; every attempt is recorded."""
    fake.enqueue("m", Behaviour(fault=Fault.RATE_LIMITED), Behaviour(text="second try"))
    records: list[CallRecord] = []
    async with Gateway(
        [provider_on(fake.url)], recorder=records.append, retry_backoff_s=0.05
    ) as gw:
        final = await gw.call(with_params(ask("m"), retries=1))
    assert final.outcome is Outcome.ANSWERED
    assert final.text == "second try"
    assert [(r.attempt, r.final, r.outcome) for r in records] == [
        (0, False, Outcome.RATE_LIMITED),
        (1, True, Outcome.ANSWERED),
    ]
    assert records[1].elapsed_ms >= records[0].elapsed_ms + 50


async def test_no_retry_when_the_format_allows_none(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], ask: Callable[..., Call]
) -> None:
    """D-ASK-2: one call per model per round; a 500 is final."""
    gw, records = gateway
    fake.enqueue("m", Behaviour(fault=Fault.SERVER_ERROR), Behaviour(text="never asked"))
    final = await gw.call(ask("m"))
    assert final.outcome is Outcome.PROVIDER_ERROR
    assert len(records) == 1
    assert len(fake.requests) == 1


async def test_no_retry_whose_backoff_passes_the_deadline(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """D-RND-3: retries happen only inside the deadline."""
    fake.enqueue("m", Behaviour(fault=Fault.UNAVAILABLE), Behaviour(text="too late"))
    async with Gateway([provider_on(fake.url)], retry_backoff_s=60.0) as gw:
        final = await gw.call(with_params(ask("m"), retries=3))
    assert final.outcome is Outcome.PROVIDER_ERROR
    assert final.attempt == 0
    assert len(fake.requests) == 1


async def test_retry_waits_as_long_as_retry_after_asks(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """D-RND-3, C-5: a 429's ``Retry-After`` is the wait before the retry (not the shorter
    back-off), and the retry happens because it fits inside the deadline."""
    fake.enqueue(
        "m", Behaviour(fault=Fault.RATE_LIMITED, retry_after_s=0.25), Behaviour(text="later")
    )
    records: list[CallRecord] = []
    async with Gateway(
        [provider_on(fake.url)], recorder=records.append, retry_backoff_s=0.01
    ) as gw:
        final = await gw.call(with_params(ask("m"), retries=1))
    assert final.text == "later"
    assert records[0].error is not None
    assert records[0].error.endswith("(retry after 0.25 s)")
    first, second = fake.requests
    assert second.received_at - first.received_at >= 0.25
    assert records[1].elapsed_ms >= records[0].elapsed_ms + 250


async def test_no_retry_when_retry_after_passes_the_deadline(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """D-RND-3: a ``Retry-After`` that ends past the deadline means no retry, at once (the
    short back-off would have fitted: the provider's word wins)."""
    fake.enqueue(
        "m", Behaviour(fault=Fault.RATE_LIMITED, retry_after_s=60.0), Behaviour(text="too late")
    )
    async with Gateway([provider_on(fake.url)], retry_backoff_s=0.01) as gw:
        final = await gw.call(with_params(ask("m"), retries=3))
    assert final.outcome is Outcome.RATE_LIMITED
    assert final.attempt == 0
    assert final.elapsed_ms < 5000  # it did not sleep towards the 10 s deadline
    assert len(fake.requests) == 1


def test_retry_after_reads_milliseconds_seconds_and_dates() -> None:
    """D-RND-3: ``retry-after-ms`` first, then seconds or an HTTP date; junk is ignored."""
    now = datetime(2026, 7, 16, 12, 0, 0, tzinfo=UTC)
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after-ms": "soon", "retry-after": "2"}) == 2.0
    assert retry_after({"retry-after": "Thu, 16 Jul 2026 12:00:03 GMT"}, now=now) == 3.0
    assert retry_after({"retry-after": "Thu, 16 Jul 2026 11:00:00 GMT"}, now=now) == 0.0
    for junk in ({}, {"retry-after": "later"}, {"retry-after": "-1"}, {"retry-after": "nan"}):
        assert retry_after(junk) is None


async def test_limit_is_per_provider(
    provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """C-2: one provider's full queue does not hold back another provider's calls."""
    with FakeProvider() as one, FakeProvider() as two:
        one.script_model("m", Behaviour(text="1", latency_s=0.4))
        two.script_model("m", Behaviour(text="2", latency_s=0.0))
        p1 = provider_on(one.url)
        p2 = provider_on(two.url)
        p2.name = "other"
        async with Gateway([p1, p2], limits={"openrouter": 1, "other": 1}) as gw:
            calls = [ask("m", agent="a0"), ask("m", agent="a1"), ask("m", agent="b")]
            calls[2] = replace(calls[2], provider="other")
            records = await gw.call_all(calls)
    assert [r.text for r in records] == ["1", "1", "2"]
    assert records[1].queued_ms >= 350  # waited for its own provider's slot
    # the other provider's call did not: sharing the slot, it would have queued behind
    # both of the first provider's calls, longer than the second of them did
    assert records[2].queued_ms < records[1].queued_ms / 2
    assert records[2].elapsed_ms < records[0].elapsed_ms
