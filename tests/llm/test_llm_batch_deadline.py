"""One deadline timer per window of a batch: same outcomes as a scope per call (C-2, C-5)."""

from __future__ import annotations

import asyncio

import pytest

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.records import CallKey
from tradeleague.llm.types import UNDER_GATEWAY_DEADLINE, ChatRequest, ModelReply


class Sleeper:
    """Answers after ``model`` seconds (the model name is the latency)."""

    name = "sleeper"

    def __init__(self) -> None:
        self.cancelled = 0

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        try:
            await asyncio.sleep(float(request.model))
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return ModelReply(outcome=Outcome.ANSWERED, text=request.model)


def _call(latency: float, window: float, agent: str) -> Call:
    return Call(
        request=ChatRequest(
            model=str(latency),
            messages=(Message("user", "hi"),),
            params=CallParams(timeout_s=window),
        ),
        provider="sleeper",
        key=CallKey("s", "r", agent),
    )


async def test_each_window_of_a_batch_keeps_its_own_deadline() -> None:
    """C-2: calls with different windows in one batch end at their own deadlines."""
    sleeper = Sleeper()
    async with Gateway([sleeper], limits={"sleeper": 1}) as gw:
        records = await gw.call_all(
            [
                _call(0.05, 10.0, "fast"),  # answers inside its (ample) window
                _call(5.0, 0.2, "late"),  # sent, ended by its deadline
                _call(0.01, 0.1, "queued"),  # waits behind "late" past its own deadline
                _call(5.0, 0.4, "later"),  # sent after "late" ends, ended by the longer window
            ]
        )
    fast, late, queued, later = records
    assert (fast.outcome, fast.text) == (Outcome.ANSWERED, "0.05")
    assert late.outcome is Outcome.TIMEOUT
    assert late.error == "no reply within 0.2 s of the ask"
    assert 195 <= late.elapsed_ms < 5000  # ended by the deadline, not the 5 s answer
    assert queued.outcome is Outcome.TIMEOUT
    assert queued.error == "still queued for a concurrency slot at the deadline: never sent"
    assert queued.latency_ms == 0
    assert queued.queued_ms >= 95
    assert later.outcome is Outcome.TIMEOUT
    assert later.error == "no reply within 0.4 s of the ask"
    assert 395 <= later.elapsed_ms < 5000
    assert sleeper.cancelled == 2


async def test_a_cancellation_from_outside_is_not_a_timeout_record() -> None:
    """C-5: a round cancelled before the deadline propagates; nothing is recorded as a timeout."""
    seen: list[object] = []
    async with Gateway([Sleeper()], recorder=seen.append) as gw:
        task = asyncio.ensure_future(gw.call_all([_call(5.0, 2.0, "a"), _call(5.0, 2.0, "b")]))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert seen == []
        # the gateway's timers are gone with the batch: a later call is unaffected
        record = await gw.call(_call(0.01, 10.0, "c"))
    assert record.outcome is Outcome.ANSWERED


async def test_an_outer_timeout_shorter_than_the_deadline_stays_the_callers() -> None:
    """C-2: the caller's own timeout (a turn's hard limit) fires as its own ``TimeoutError``."""
    async with Gateway([Sleeper()]) as gw:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await gw.call_all([_call(5.0, 2.0, "a")])
        current = asyncio.current_task()
        assert current is not None
        assert current.cancelling() == 0


async def test_providers_know_when_a_gateway_deadline_covers_them() -> None:
    """C-2: inside a batch the gateway's deadline rules, so a provider may skip its own timer."""
    seen: list[bool] = []

    class Looking(Sleeper):
        async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
            seen.append(UNDER_GATEWAY_DEADLINE.get())
            return await super().complete(request, api_key)

    provider = Looking()
    async with Gateway([provider]) as gw:
        await gw.call_all([_call(0.01, 10.0, "a"), _call(0.01, 10.0, "b")])
    await provider.complete(_call(0.01, 10.0, "c").request, None)
    assert seen == [True, True, False]
    assert UNDER_GATEWAY_DEADLINE.get() is False


async def test_one_call_ends_at_its_deadline_inside_a_callers_timeout() -> None:
    """C-2: a lone call (run in the caller's own task) still ends ``timeout`` at its deadline."""
    sleeper = Sleeper()
    async with Gateway([sleeper]) as gw, asyncio.timeout(5.0):
        record = await gw.call(_call(5.0, 0.1, "a"))
        current = asyncio.current_task()
        assert current is not None
        assert current.cancelling() == 0
    assert record.outcome is Outcome.TIMEOUT
    assert record.error == "no reply within 0.1 s of the ask"
    assert sleeper.cancelled == 1
    assert UNDER_GATEWAY_DEADLINE.get() is False
