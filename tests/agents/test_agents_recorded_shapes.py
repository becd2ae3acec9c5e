"""One reader of recorded calls, for every ``ModelCalled`` shape ever written (C-5).

``agents.recorded.calls_in`` is the only code that turns stored ``ModelCalled``
events into call records. A store holding the current shape beside the three
older ones (the weights league's flat record plus ``agent``, the gateway
recorder's bare record, the arena's unversioned ``{"record": ...}``) reads back
every record, in log order; an event holding no record is named by its sequence.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tradeleague.agents.recorded import (
    NotACallRecord,
    call_record_of,
    calls_in,
    load_recorded_answers,
    model_called_event,
)
from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.clock import ReplayClock
from tradeleague.events import Event, EventKind, check_payload
from tradeleague.llm.records import CallKey, CallRecord, RecordFormatError
from tradeleague.store import open_store

T0 = datetime(2026, 3, 2, 15, tzinfo=UTC)


def _record(agent: str, turn: int = 0, *, season: str = "s1") -> CallRecord:
    return CallRecord(
        key=CallKey(season, "2026-03-02T15:00:00Z", agent, turn),
        attempt=0,
        final=True,
        provider="p",
        model="m",
        messages=(Message("user", "Go."),),
        params=CallParams(),
        json_schema=None,
        tools=(),
        outcome=Outcome.ANSWERED,
        text='{"direction": "up"}',
        tool_calls=(),
        finish_reason="stop",
        http_status=200,
        error=None,
        prompt_tokens=3,
        completion_tokens=4,
        cost_micros=None,
        asked_at=T0,
        queued_ms=0,
        latency_ms=900,
        elapsed_ms=900,
    )


def _shapes() -> list[tuple[str, dict[str, object]]]:
    """Return (agent, payload) in each shape, one agent per shape."""
    a, b, c, d = (_record(x) for x in ("a", "b", "c", "d"))
    return [
        ("a", {"v": 2, "agent": "a", "round": a.key.round, "record": a.to_payload()}),
        ("b", {**b.to_payload(), "agent": "b"}),  # the weights league's first shape
        ("c", c.to_payload()),  # the gateway recorder's first shape
        ("d", {"season": "S1", "round": "S1-R1", "agent": "d", "record": d.to_payload()}),
    ]


@pytest.mark.parametrize(("agent", "payload"), _shapes())
def test_every_shape_holds_its_record(agent: str, payload: dict[str, object]) -> None:
    """C-5: each shape gives back the record it was written from, and validates."""
    assert call_record_of(payload) == _record(agent)
    assert check_payload(EventKind.MODEL_CALLED, payload) == []


def test_a_store_of_mixed_shapes_reads_back_in_log_order(sqlite_url: str) -> None:
    """C-5: one reader, every shape, log order; another season's calls are left out."""
    clock = ReplayClock(T0)
    events = [
        Event("s1", EventKind.MODEL_CALLED, p, T0 + timedelta(seconds=i))
        for i, (_, p) in enumerate(_shapes())
    ]
    other = model_called_event(_record("e", season="s2"), stream="s1", clock=clock)
    assert other.payload["agent"] == "e"
    assert other.payload["v"] == 2
    with open_store(sqlite_url) as store:
        store.append([*events, other])
        got = calls_in(store.events("s1"), season="s1")
        answers = load_recorded_answers(store, "s1")
    assert [r.key.agent for r in got] == ["a", "b", "c", "d"]
    assert len(answers) == 4


def test_a_call_without_a_record_is_named_by_its_sequence(sqlite_url: str) -> None:
    """A ModelCalled event holding no record stops the reader with its sequence number."""
    good = {"v": 2, "agent": "a", "round": "r", "record": _record("a").to_payload()}
    with open_store(sqlite_url) as store:
        store.append(
            [
                Event("s1", EventKind.MODEL_CALLED, good, T0),
                Event("s1", EventKind.MODEL_CALLED, {"agent": "x"}, T0),
            ]
        )
        with pytest.raises(NotACallRecord, match=r"event 2: not a call record") as caught:
            calls_in(store.events("s1"))
    assert caught.value.seq == 2
    assert isinstance(caught.value, RecordFormatError)
