"""Call records and their JSON-safe payload for the event store (C-4, C-5)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.records import CallKey, CallRecord, RecordFormatError
from tradeleague.money import Usd

texts = st.text(st.characters(blacklist_categories=["Cs"]), max_size=200)
optional_ints = st.none() | st.integers(0, 10**9)
tool_calls = st.lists(
    st.builds(
        lambda i, name, args: {
            "id": i,
            "type": "function",
            "function": {"name": name, "arguments": args},
        },
        texts,
        texts,
        texts,
    ),
    min_size=1,
    max_size=3,
).map(tuple)
messages = st.one_of(
    st.builds(Message, st.sampled_from(["system", "user", "assistant"]), texts),
    st.builds(lambda c, calls: Message("assistant", c, tool_calls=calls), texts, tool_calls),
    st.builds(lambda c, i: Message("tool", c, tool_call_id=i), texts, texts),
)


@st.composite
def records(draw: st.DrawFn) -> CallRecord:
    return CallRecord(
        key=CallKey(draw(texts), draw(texts), draw(texts), draw(st.integers(0, 99))),
        attempt=draw(st.integers(0, 5)),
        final=draw(st.booleans()),
        provider=draw(texts),
        model=draw(texts),
        messages=tuple(draw(st.lists(messages, min_size=1, max_size=4))),
        params=CallParams(
            temperature=draw(st.floats(0, 2, allow_nan=False)),
            max_tokens=draw(st.integers(1, 10**6)),
            reasoning=draw(st.booleans()),
            timeout_s=draw(st.floats(0.001, 3600, allow_nan=False)),
            retries=draw(st.integers(0, 3)),
        ),
        json_schema=draw(st.none() | st.just({"type": "object", "minimum": 0.5})),
        tools=draw(st.just(()) | st.just(({"type": "function", "function": {"name": "f"}},))),
        outcome=draw(st.sampled_from(list(Outcome))),
        text=draw(st.none() | texts),
        tool_calls=draw(st.just(()) | tool_calls),
        finish_reason=draw(st.none() | st.sampled_from(["stop", "length", "tool_calls"])),
        http_status=draw(st.none() | st.integers(100, 599)),
        error=draw(st.none() | texts),
        prompt_tokens=draw(optional_ints),
        completion_tokens=draw(optional_ints),
        cost_micros=draw(st.none() | st.integers(0, 10**12).map(Usd)),
        asked_at=draw(st.datetimes(timezones=st.just(UTC))),
        queued_ms=draw(st.integers(0, 10**6)),
        latency_ms=draw(st.integers(0, 10**6)),
        elapsed_ms=draw(st.integers(0, 10**6)),
    )


def _floats_in(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats_in(v)]
    if isinstance(value, list):
        return [f for v in value for f in _floats_in(v)]
    return []


@given(records())
def test_payload_round_trips_through_json_without_floats(record: CallRecord) -> None:
    """C-5: a record survives JSON exactly; its payload holds no float anywhere."""
    payload = record.to_payload()
    assert _floats_in(payload) == []
    again = CallRecord.from_payload(json.loads(json.dumps(payload)))
    assert again == record
    assert again.to_payload() == payload


def test_payload_spells_timings_and_floats_as_text() -> None:
    """C-5: latency is whole milliseconds; temperature a decimal string."""
    record = CallRecord(
        key=CallKey("s", "r", "a", 1),
        attempt=0,
        final=True,
        provider="openrouter",
        model="m",
        messages=(Message("user", "hi"),),
        params=CallParams(),
        json_schema=None,
        tools=(),
        outcome=Outcome.ANSWERED,
        text="  raw text, kept exactly\n",
        tool_calls=(),
        finish_reason="stop",
        http_status=200,
        error=None,
        prompt_tokens=1,
        completion_tokens=2,
        cost_micros=Usd(3),
        asked_at=datetime(2026, 7, 16, 12, 0, tzinfo=UTC),
        queued_ms=0,
        latency_ms=1234,
        elapsed_ms=1235,
    )
    payload = record.to_payload()
    assert payload["params"] == {
        "temperature": "0.3",
        "max_tokens": 320,
        "reasoning": False,
        "timeout_s": "45.0",
        "retries": 0,
    }
    assert payload["latency_ms"] == 1234
    assert payload["text"] == "  raw text, kept exactly\n"
    assert payload["key"] == {"season": "s", "round": "r", "agent": "a", "turn": 1}
    assert payload["asked_at"] == "2026-07-16T12:00:00+00:00"
    assert record.reply.latency_s == 1.235
    assert record.key.text == "s/r/a/1"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("unknown",), 1),
        (("v",), 3),
        (("v",), True),
        (("v",), [2]),
        (("messages", 0, "tool_call_id"), 7),
        (("messages", 0, "tool_calls"), "[]"),
        (("messages", 0, "tool_calls"), '{"id": "c"}'),
        (("messages", 0, "name"), "x"),
        (("attempt",), True),
        (("latency_ms",), 1.5),
        (("outcome",), "exploded"),
        (("params", "temperature"), 0.3),
        (("asked_at",), "2026-07-16T12:00:00"),
        (("tools",), "{not json"),
    ],
)
def test_from_payload_rejects_malformed_payloads(path: tuple[str, ...], value: object) -> None:
    """C-5: a payload that is not exactly a record's is refused, never guessed."""
    record = CallRecord.from_payload(_valid_payload())
    payload = record.to_payload()
    target: Any = payload
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    with pytest.raises(RecordFormatError):
        CallRecord.from_payload(payload)


def test_payload_carries_native_tool_messages() -> None:
    """C-5, T-AGT-2: a tool step's messages keep their tool calls and call ids, as JSON text."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"n": 2.5}'}}
    conversation = (
        Message("user", "go"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", '{"result":1}', tool_call_id="c1"),
    )
    record = CallRecord.from_payload({**_valid_payload(), "v": 2})
    payload = {**record.to_payload(), "messages": []}
    payload["messages"] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": json.dumps([call])},
        {"role": "tool", "content": '{"result":1}', "tool_call_id": "c1"},
    ]
    again = CallRecord.from_payload(payload)
    assert again.messages == conversation
    assert again.to_payload()["messages"][1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": json.dumps([call], sort_keys=True, separators=(",", ":")),
    }
    assert again.to_payload()["v"] == 2


def test_version_1_payloads_are_still_read_but_hold_no_tool_fields() -> None:
    """C-5: a season recorded before version 2 still replays; version 1 knows no tool fields."""
    old = _valid_payload()
    assert old["v"] == 1
    record = CallRecord.from_payload(old)
    assert record.messages == (Message("user", "x"),)
    assert record.to_payload()["v"] == 2
    old["messages"] = [{"role": "tool", "content": "1", "tool_call_id": "c1"}]
    with pytest.raises(RecordFormatError, match="unknown"):
        CallRecord.from_payload(old)


def _valid_payload() -> dict[str, Any]:
    return {
        "v": 1,
        "key": {"season": "s", "round": "r", "agent": "a", "turn": 0},
        "attempt": 0,
        "final": True,
        "provider": "p",
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "params": {
            "temperature": "0.3",
            "max_tokens": 320,
            "reasoning": False,
            "timeout_s": "45.0",
            "retries": 0,
        },
        "json_schema": None,
        "tools": "[]",
        "outcome": "answered",
        "text": "t",
        "tool_calls": "[]",
        "finish_reason": None,
        "http_status": 200,
        "error": None,
        "prompt_tokens": None,
        "completion_tokens": None,
        "cost_micros": None,
        "asked_at": "2026-07-16T12:00:00+00:00",
        "queued_ms": 0,
        "latency_ms": 1,
        "elapsed_ms": 1,
    }


def test_model_called_payloads_of_every_format_give_the_same_record() -> None:
    """C-5: the weights league adds ``agent``, the arena nests under ``record``: one reader."""
    from tradeleague.agents.recorded import call_record_of

    bare = _valid_payload()
    record = CallRecord.from_payload(bare)
    assert call_record_of(bare) == record
    assert call_record_of({**bare, "agent": "a"}) == record
    assert call_record_of({"round": "r", "model": "m", "record": bare}) == record
    with pytest.raises(RecordFormatError):
        call_record_of({"agent": "a"})
