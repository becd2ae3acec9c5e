"""A call reaches the provider at most once, and a dropped connection is named for what it was.

Issue 24: a provider that read the whole request and then reset the connection
was classified ``connection_refused``, its advice said to start the server,
the summary showed an internal class name, and the gateway sent the POST a
second time (a paid call, twice). Against ``DroppingServer``, which counts the
connections it accepted and the requests it read whole: refused, reset before
reading, reset after reading, a keep-alive connection the server half-closes
while idle, a server that closes after every answer.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.league.answers import AgentSummary, error_class
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import custom_preset
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest
from tradeleague.testing.dropping_server import ANSWER, DroppingServer
from tradeleague.testing.ports import refusing_url

CALLS = 4
PARAMS = CallParams(temperature=0.3, max_tokens=64, timeout_s=20.0, retries=2)
"""A generous deadline (no test waits on it) and retries allowed: none may resend a
request the provider may have received."""

_INTERNAL = re.compile(r"\b_[A-Z]\w*|ConnectionDropped|HttpFailure|tradeleague\.")


def _call(i: int, params: CallParams = PARAMS) -> Call:
    request = ChatRequest(model="m", messages=(Message("user", "Up or down?"),), params=params)
    return Call(request=request, provider="p", key=CallKey("s", f"r{i}", "a", 0))


def _provider(url: str) -> OpenAICompatProvider:
    return OpenAICompatProvider(custom_preset("p", url))


async def _calls(
    url: str, between: Callable[[], object] | None = None, *, params: CallParams = PARAMS
) -> list[CallRecord]:
    """Make ``CALLS`` calls one after another on one gateway (one pool)."""
    records: list[CallRecord] = []
    async with Gateway([_provider(url)], retry_backoff_s=0.01) as gw:
        for i in range(CALLS):
            records.append(await gw.call(_call(i, params)))
            if between is not None:
                waited = between()
                if asyncio.iscoroutine(waited):
                    await waited
    return records


def _no_internal_names(records: list[CallRecord]) -> None:
    for record in records:
        assert not _INTERNAL.search(record.error or ""), record.error


async def test_llm_refused_connection_is_connection_refused() -> None:
    """Issue 24: nothing listens: ``connection_refused``; retries may go, as nothing was sent."""
    records = await _calls(refusing_url("/v1"))
    assert [r.outcome for r in records] == [Outcome.PROVIDER_ERROR] * CALLS
    assert {error_class(r) for r in records} == {"connection_refused"}
    assert all(r.attempt == PARAMS.retries for r in records)  # nothing was sent: retries may go
    _no_internal_names(records)


async def test_llm_a_reset_after_reading_is_connection_reset_and_never_sent_again() -> None:
    """Issue 24: the server read the whole request, then reset the connection: the call is
    ``connection_reset`` and the gateway never sends it again, retries allowed or not; the
    server read each call exactly once, and no internal name shows."""
    with DroppingServer("reset_after_read") as server:
        records = await _calls(server.url)
    assert [r.outcome for r in records] == [Outcome.PROVIDER_ERROR] * CALLS
    assert {error_class(r) for r in records} == {"connection_reset"}
    assert all(r.attempt == 0 and r.final for r in records)
    assert all("so it was not sent again" in (r.error or "") for r in records)
    assert (server.connections, server.requests) == (CALLS, CALLS)
    _no_internal_names(records)


async def test_llm_a_reset_before_reading_is_connection_reset() -> None:
    """Issue 24: the server resets each connection before reading: ``connection_reset``
    (a connection was made), one connection per call and no request read."""
    with DroppingServer("reset_before_read") as server:
        records = await _calls(server.url, params=replace(PARAMS, retries=0))
    assert [r.outcome for r in records] == [Outcome.PROVIDER_ERROR] * CALLS
    assert {error_class(r) for r in records} == {"connection_reset"}
    assert (server.connections, server.requests) == (CALLS, 0)
    _no_internal_names(records)


async def test_llm_a_half_closed_idle_connection_is_never_written_to() -> None:
    """Issue 24: the server half-closes an idle keep-alive connection (its FIN waits in the
    kernel, unseen by the paused event loop); the next call goes on a new connection, and
    the server reads each call exactly once."""
    with DroppingServer("half_close_when_idle", idle_s=0.05) as server:

        def wait_for_the_fin() -> None:  # blocking on purpose: the event loop sees nothing
            assert server.settled.acquire(timeout=30)

        records = await _calls(server.url, wait_for_the_fin)
    assert [(r.outcome, r.text) for r in records] == [(Outcome.ANSWERED, ANSWER)] * CALLS
    assert server.requests == CALLS
    assert server.per_connection == [1] * CALLS


async def test_llm_a_server_closing_after_every_answer_gets_each_call_once() -> None:
    """Issue 24: a server that closes after every answer (while claiming keep-alive) gets
    each call exactly once, each on its own connection, and every call is answered."""
    with DroppingServer("close_after_answer") as server:

        async def closed() -> None:
            assert await asyncio.to_thread(server.settled.acquire, True, 30)

        records = await _calls(server.url, closed)
    assert [(r.outcome, r.text) for r in records] == [(Outcome.ANSWERED, ANSWER)] * CALLS
    assert server.per_connection == [1] * CALLS


async def test_llm_an_idle_connection_past_its_age_is_not_reused() -> None:
    """A connection idle longer than the pool's limit is replaced before the server's own
    keep-alive timer can close it under a request; one kept busy is reused."""
    from tradeleague.llm.http_pool import HttpPool

    with DroppingServer("answer") as server:
        pool = HttpPool(server.url, max_connections=2, max_idle_s=0.2)
        try:
            await pool.post("/chat/completions", b"{}", {})
            await pool.post("/chat/completions", b"{}", {})  # at once: the same connection
            await asyncio.sleep(0.3)
            await pool.post("/chat/completions", b"{}", {})  # too old: a new one
        finally:
            pool.close()
    assert server.per_connection == [2, 1]


def test_llm_summary_advice_follows_the_class() -> None:
    """Issue 24: the advice for a reset says what happened (no "start the server"), and the
    advice for a refusal still says to start it; neither names an internal class."""
    reset = AgentSummary(
        "m",
        faults=Counter({"connection_reset": 5}),
        fault_errors={"connection_reset": "connection reset: the server closed the connection"},
    )
    refused = AgentSummary(
        "n",
        faults=Counter({"connection_refused": 5}),
        fault_errors={"connection_refused": "connection failed: [Errno 111] Connect call failed"},
    )
    said = reset.diagnosis() or ""
    assert "dropped the connection after the request was sent" in said
    assert "not sent again" in said
    assert "start the server" not in said
    assert "start the server" in (refused.diagnosis() or "")
    assert not _INTERNAL.search(said)
