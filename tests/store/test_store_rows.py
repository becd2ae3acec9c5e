"""Reading a row back: the quick path for canonical text gives what the full checks give (C-4)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.events import Event, canonical_json
from tradeleague.store.rows import _canonical_object, row_to_stored, strict_loads

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)
ID = "01J0000000000000000000000A"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _row(payload: str, *, kind: str = "OrderFilled", stream: str = "s") -> Any:
    mapping = {
        "seq": 7,
        "event_id": ID,
        "stream": stream,
        "kind": kind,
        "occurred_at": T0,
        "payload": payload,
        "prev_hash": "0" * 64,
        "hash": "1" * 64,
    }
    return SimpleNamespace(_mapping=mapping, seq=7)


def _full_checks(text: str) -> Event:
    """The event the checks of a new event make of ``text`` (the path before the quick one)."""
    payload = strict_loads(text)
    assert isinstance(payload, dict)
    return Event("s", "OrderFilled", payload, T0, id=ID)


@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_canonical_text_reads_back_as_the_checked_event(payload: dict[str, object]) -> None:
    """C-4: the quick path takes canonical text as is, equal to the fully checked event."""
    text = canonical_json(payload)
    assert _canonical_object(text) == payload
    stored = row_to_stored(_row(text))
    assert stored.event == _full_checks(text)
    assert stored.event.payload_json == text
    assert stored.event.payload == payload
    assert stored.event.payload_view == payload


@pytest.mark.parametrize(
    "text",
    [
        '{"b":1,"a":2}',  # keys out of order
        '{"a": 1}',  # a space
        '{"a":"\\u00e9"}',  # an escape canonical JSON does not write
        '{"a":-0}',
    ],
)
def test_non_canonical_text_takes_the_full_checks(text: str) -> None:
    """Text the writer would not have written is re-made canonical, as before."""
    assert _canonical_object(text) is None
    event = row_to_stored(_row(text)).event
    assert event == _full_checks(text)
    assert event.payload_json == canonical_json(json.loads(text))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a":1,"a":1}', ValueError),  # a repeated key, even with equal values
        ('{"a":1.5}', TypeError),  # a float
        ('{"a":NaN}', TypeError),
        ('{"a":"\\ud800"}', ValueError),  # a lone surrogate, escaped
        ('{"a":"\ud800"}', ValueError),  # a lone surrogate, raw
        ("[1]", TypeError),
        ("{", ValueError),
    ],
)
def test_malformed_text_is_refused_as_before(text: str, error: type[Exception]) -> None:
    """C-4: the quick path lets nothing through that the full checks refuse."""
    assert _canonical_object(text) is None
    with pytest.raises(error):
        row_to_stored(_row(text))


@pytest.mark.parametrize(
    "row",
    [_row("{}", kind="orderFilled"), _row("{}", stream=""), _row("{}", stream="a\nb")],
)
def test_malformed_envelope_is_refused_on_the_quick_path(row: Any) -> None:
    with pytest.raises(ValueError):
        row_to_stored(row)


def test_payload_view_is_decoded_once_and_payload_stays_a_copy() -> None:
    event = Event("s", "OrderFilled", {"a": [1]}, T0, id=ID)
    assert event.payload_view is event.payload_view
    copy = event.payload
    copy["a"] = 2
    assert event.payload_view == {"a": [1]}
    assert event.with_id("01J0000000000000000000000B").payload_view == {"a": [1]}
