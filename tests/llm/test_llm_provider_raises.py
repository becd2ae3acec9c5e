"""A provider that raises breaks only its own call; every call is still recorded (C-5, C-9).

``Provider.complete`` must turn faults into outcomes, but a custom provider may
have a bug and a client library may raise an exception nobody mapped. The
gateway turns any such exception into ``provider_error``, naming the type (its
message only for known-safe types), and the batch's other calls keep their
answers and records.
"""

from __future__ import annotations

import httpx2
import openai

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.gateway import Call, Gateway, provider_error_text
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest, ModelReply

KEY = "sk-owner-7f3a9c1e5b2d8f4a6c0e"


class _Flaky:
    """A custom provider: answers ``good``, raises for ``bad``, quotes the key for ``echo``."""

    name = "custom"

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls: list[str] = []

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        self.calls.append(request.model)
        if request.model == "bad":
            raise self.error
        if request.model == "echo":
            return ModelReply(
                outcome=Outcome.KEY_REJECTED, http_status=401, error=f"bad key {api_key}!"
            )
        return ModelReply(outcome=Outcome.ANSWERED, text=f"answer of {request.model}")


def _call(model: str, agent: str, retries: int = 0) -> Call:
    return Call(
        request=ChatRequest(
            model=model,
            messages=(Message("user", "Up?"),),
            params=CallParams(timeout_s=10.0, retries=retries),
        ),
        provider="custom",
        key=CallKey("s1", "r1", agent, 0),
        api_key=KEY,
    )


async def test_llm_raising_provider_is_provider_error_and_the_batch_is_kept() -> None:
    """C-5: the raising call is recorded as ``provider_error``; the others keep their answers."""
    provider = _Flaky(RuntimeError(f"boom while sending {KEY}"))
    records: list[CallRecord] = []
    async with Gateway([provider], recorder=records.append) as gw:
        got = await gw.call_all([_call("good", "a"), _call("bad", "b"), _call("good", "c")])
    assert [r.outcome for r in got] == [Outcome.ANSWERED, Outcome.PROVIDER_ERROR, Outcome.ANSWERED]
    assert [r.text for r in got] == ["answer of good", None, "answer of good"]
    assert got[1].error == "the provider raised RuntimeError"  # type only: no message, no key
    assert got[1].http_status is None
    assert sorted(r.key.agent for r in records) == ["a", "b", "c"]
    assert all(r.final for r in records)


async def test_llm_raising_provider_is_retried_like_any_provider_error() -> None:
    """C-5, D-RND-3: a raised exception is retryable where the format allows; each try is kept."""
    provider = _Flaky(KeyError("secret"))
    records: list[CallRecord] = []
    async with Gateway([provider], recorder=records.append, retry_backoff_s=0.01) as gw:
        record = await gw.call(_call("bad", "a", retries=2))
    assert provider.calls == ["bad", "bad", "bad"]
    assert [(r.attempt, r.final, r.outcome) for r in records] == [
        (0, False, Outcome.PROVIDER_ERROR),
        (1, False, Outcome.PROVIDER_ERROR),
        (2, True, Outcome.PROVIDER_ERROR),
    ]
    assert record == records[-1]
    assert record.error == "the provider raised KeyError"


async def test_llm_known_safe_provider_exception_keeps_its_message() -> None:
    """C-5: an exception of a known-safe type is recorded with its (redacted) message."""
    response = httpx2.Response(200, request=httpx2.Request("POST", "http://127.0.0.1/v1"))
    error = openai.APIResponseValidationError(response, None)
    async with Gateway([_Flaky(error)]) as gw:
        record = await gw.call(_call("bad", "a"))
    assert record.outcome is Outcome.PROVIDER_ERROR
    assert record.error == f"the provider raised APIResponseValidationError: {error}"
    assert "invalid" in str(error)
    assert provider_error_text(ValueError(KEY)) == "the provider raised ValueError"


async def test_llm_gateway_redacts_a_custom_providers_error_text() -> None:
    """C-9: whatever the provider, the key sent never reaches the record's error text."""
    async with Gateway([_Flaky(RuntimeError())]) as gw:
        record = await gw.call(_call("echo", "a"))
    assert record.outcome is Outcome.KEY_REJECTED
    assert record.error == "bad key [redacted]!"
    assert KEY[-5:] not in record.to_payload()["error"]


async def test_llm_providers_own_timeout_error_is_not_mistaken_for_the_deadline() -> None:
    """C-5, D-RND-3: a ``TimeoutError`` the provider raises early is ``timeout``, said as such."""
    async with Gateway([_Flaky(TimeoutError(f"read timed out for {KEY}"))]) as gw:
        record = await gw.call(_call("bad", "a"))
    assert record.outcome is Outcome.TIMEOUT
    assert record.error == "the provider raised TimeoutError"  # not "no reply within 10.0 s"
    assert record.elapsed_ms < 5000  # it did not wait for the 10 s deadline
