"""Events as immutable facts and their canonical JSON (SPEC C-4, C-11)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.clock import ReplayClock
from tradeleague.events import Event, EventKind, canonical_json, utc_iso
from tradeleague.events.base import _check_json
from tradeleague.store.chain import content_json

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def test_canonical_json_sorts_keys_without_spaces() -> None:
    """C-4: one canonical text per value, so hashes agree on every machine."""
    assert canonical_json({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'


@pytest.mark.parametrize(
    "value",
    [1.5, {"a": 0.0}, {"a": [1, 2.0]}, {"a": {"b": float("nan")}}],
)
def test_canonical_json_refuses_floats_anywhere(value: object) -> None:
    """W-EXE-7: no binary float travels in an event."""
    with pytest.raises(TypeError, match="float"):
        canonical_json(value)


@pytest.mark.parametrize("value", [{1: "a"}, (1, 2), {"a": {1, 2}}, {"a": Decimal("1")}, b"x"])
def test_canonical_json_refuses_other_types(value: object) -> None:
    with pytest.raises(TypeError):
        canonical_json(value)


def test_canonical_json_refuses_lone_surrogates() -> None:
    with pytest.raises(ValueError, match="Unicode"):
        canonical_json({"a": "\ud800"})


@given(json_values)
def test_canonical_json_round_trips(value: object) -> None:
    """C-4: parsing the canonical text gives the value back, and the text again."""
    text = canonical_json(value)
    assert json.loads(text) == value
    assert canonical_json(json.loads(text)) == text


class _Text(str):
    pass


class _Count(int):
    pass


any_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False)
    | st.sampled_from(["\ud800", _Text("t"), _Count(3), Decimal("1"), (1, 2), b"x", "é"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text() | st.sampled_from([1, _Text("k"), "\udfff"]), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


def _reference(value: object) -> str:
    """``canonical_json`` as it was: the recursive check, then the encoder."""
    _check_json(value, "$")
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


@given(any_values)
def test_canonical_json_fast_check_agrees_with_the_full_one(value: object) -> None:
    """C-4: the fast path accepts and refuses exactly what the recursive check does,
    with the same error, and writes the same text."""
    try:
        expected: object = _reference(value)
    except (TypeError, ValueError) as exc:
        expected = (type(exc), str(exc))
    try:
        got: object = canonical_json(value)
    except (TypeError, ValueError) as exc:
        got = (type(exc), str(exc))
    assert got == expected


@given(
    st.dictionaries(
        st.text() | st.sampled_from([1, True, None, _Text("k"), "\udfff"]), any_values, max_size=4
    )
)
def test_an_event_accepts_and_refuses_what_canonical_json_does(payload: dict[str, object]) -> None:
    """C-4, W-EXE-7: an event checks its payload by a round trip through the encoder;
    it refuses what `canonical_json` refuses, with the same error, stores the same text,
    and its shared view is that text decoded."""
    try:
        expected: object = canonical_json(payload)
    except (TypeError, ValueError) as exc:
        expected = (type(exc), str(exc))
    try:
        event = Event("s", "PriceRead", payload, T0)
    except (TypeError, ValueError) as exc:
        got: object = (type(exc), str(exc))
    else:
        got = event.payload_json
        assert event.payload_view == json.loads(event.payload_json) == event.payload
    assert got == expected


@given(st.dictionaries(st.text(), st.integers(), max_size=6))
def test_canonical_json_ignores_insertion_order(mapping: dict[str, int]) -> None:
    reversed_mapping = dict(reversed(list(mapping.items())))
    assert canonical_json(mapping) == canonical_json(reversed_mapping)


def test_event_is_immutable_and_payload_is_a_copy() -> None:
    """C-4: an event never changes once made; mutating what it returned changes nothing."""
    payload: dict[str, object] = {"account": "a", "cash": "1"}
    event = Event("season-1", EventKind.ACCOUNT_OPENED, payload, T0)
    payload["cash"] = "999"
    copy = event.payload
    copy["cash"] = "5"
    assert event.payload == {"account": "a", "cash": "1"}
    with pytest.raises(AttributeError):
        event.stream = "other"  # type: ignore[misc]


def test_event_times_are_utc_and_naive_times_refused() -> None:
    """C-11: stored in UTC; a naive time is refused, never guessed."""
    paris = timezone(timedelta(hours=1))
    event = Event("s", "PriceRead", {}, datetime(2026, 1, 5, 16, 0, tzinfo=paris))
    assert event.occurred_at == T0
    assert event.occurred_at.tzinfo == UTC
    assert utc_iso(event.occurred_at) == "2026-01-05T15:00:00.000000Z"
    with pytest.raises(ValueError, match="naive"):
        Event("s", "PriceRead", {}, datetime(2026, 1, 5, 15, 0))  # noqa: DTZ001


@pytest.mark.parametrize(
    ("stream", "kind", "event_id"),
    [("", "PriceRead", None), ("s", "price_read", None), ("s", "PriceRead", "not-a-ulid")],
)
def test_event_envelope_is_checked(stream: str, kind: str, event_id: str | None) -> None:
    with pytest.raises(ValueError):
        Event(stream, kind, {}, T0, id=event_id)


def test_event_from_clock_gets_new_sortable_ids() -> None:
    """C-11: the time comes from the one Clock; ids are ULIDs, sortable by creation."""
    clock = ReplayClock(T0)
    first = Event.now(clock, "s", EventKind.TURN_ASKED, {"agent": "a"})
    clock.advance(timedelta(seconds=1))
    second = Event.now(clock, "s", EventKind.TURN_ASKED, {"agent": "a"})
    assert (first.occurred_at, second.occurred_at) == (T0, T0 + timedelta(seconds=1))
    assert len(first.id) == 26
    assert first.id != second.id
    assert first != second
    same = Event(first.stream, first.kind, first.payload, first.occurred_at, id=first.id)
    assert same == first
    assert hash(same) == hash(first)
    assert first.content() == {
        "id": first.id,
        "stream": "s",
        "kind": "TurnAsked",
        "occurred_at": "2026-01-05T15:00:00.000000Z",
        "payload": {"agent": "a"},
    }


printable = st.text(
    alphabet=st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp", "Cf", "Co", "Cn", "Zs")),
    min_size=1,
    max_size=30,
)


@given(
    printable,
    st.from_regex(r"[A-Z][A-Za-z0-9]{0,20}", fullmatch=True),
    st.dictionaries(st.text(), json_values, max_size=5),
    st.integers(min_value=1, max_value=2**62),
    st.datetimes(timezones=st.just(UTC)),
)
def test_chain_content_is_the_canonical_json_of_the_event(
    stream: str, kind: str, payload: dict[str, object], seq: int, moment: datetime
) -> None:
    """C-4: the chain's assembled content text equals canonical_json of the event's fields."""
    event = Event(stream, kind, payload, moment)
    content = event.content()
    content["seq"] = seq
    assert content_json(seq, event) == canonical_json(content)
