"""Hostile provider responses: every one an ``Outcome`` with a code, never a crash.

The fake provider plays raw bytes (``respond_raw``); the recursion limit is
raised as ``py_ecc`` raises it, so an unbounded decoder would overflow the stack.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.calls import Outcome
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.records import CallRecord
from tradeleague.llm.types import MAX_TOKENS_COUNTED
from tradeleague.testing.fake_provider import FakeProvider

GW = tuple[Gateway, list[CallRecord]]
DEEP = b"[" * 70_000 + b"]" * 70_000


pytestmark = pytest.mark.usefixtures("deep_stack")  # conftest: py_ecc's recursion limit


def _completion(content: object, usage: object = None) -> bytes:
    body: dict[str, object] = {
        "choices": [{"message": {"content": content}, "finish_reason": "stop"}]
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    ("status", "body", "outcome"),
    [
        (200, DEEP, Outcome.PROVIDER_ERROR),
        (200, b'{"choices":' + DEEP + b"}", Outcome.PROVIDER_ERROR),
        (500, DEEP, Outcome.PROVIDER_ERROR),
        (401, b'{"error":' * 70_000, Outcome.KEY_REJECTED),
        (200, b"\xff\xfe\xfd", Outcome.PROVIDER_ERROR),
        (200, b'{"choices": [{"message": {"content": 1e99999}}]}', Outcome.PROVIDER_ERROR),
        (200, b'{"choices": [{"message": {"content": ' + b"9" * 5000 + b"}}]}",
         Outcome.PROVIDER_ERROR),
    ],
)  # fmt: skip
async def test_hostile_bodies_are_provider_faults(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call], status: int, body: bytes,
    outcome: Outcome,
) -> None:  # fmt: skip
    """DESIGN principle 7: a deep, broken or huge body is an outcome, never a crash."""
    gw, _ = gateway
    fake.respond_raw("m", status, body, {"content-type": "application/json"})
    record = await gw.call(ask("m"))
    assert record.outcome is outcome
    assert record.error


async def test_surrogates_and_huge_counts_are_made_storable(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """A lone surrogate in the text becomes U+FFFD; huge token counts are cut, not overflowed."""
    gw, _ = gateway
    usage = {"prompt_tokens": 10**4000, "completion_tokens": -5}
    fake.respond_raw("m", 200, _completion('{"direction": "up"} \ud800', usage))
    record = await gw.call(ask("m"))
    assert record.outcome is Outcome.ANSWERED
    assert record.text == '{"direction": "up"} \ufffd'
    assert record.prompt_tokens == MAX_TOKENS_COUNTED
    assert record.completion_tokens == 0
    json.dumps(record.to_payload(), ensure_ascii=False).encode("utf-8")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=st.binary(max_size=300), status=st.sampled_from([200, 400, 401, 429, 500]))
async def test_any_bytes_from_a_provider_are_an_outcome(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call], body: bytes, status: int
) -> None:
    """Arbitrary bytes as a provider body: a record with an outcome, storable as an event."""
    gw, _ = gateway
    fake.respond_raw("m", status, body, {"content-type": "application/json"})
    record = await gw.call(ask("m"))
    assert record.outcome in set(Outcome)
    json.dumps(record.to_payload(), ensure_ascii=False).encode("utf-8")
