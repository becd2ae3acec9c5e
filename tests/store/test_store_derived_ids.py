"""Event ids derived from the stream and the place in it, for replays (C-4, C-11).

A store made by ``Store.deriving_ids`` gives each appended event the id
``derived_id(stream, position, occurred_at)``: the same events appended into a
fresh database end on the same chain head, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ulid import ULID

from tradeleague.errors import StoreError
from tradeleague.events import Event
from tradeleague.ids import _ulid_text, derived_id
from tradeleague.store import open_store, verify

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)


def _event(stream: str, n: int) -> Event:
    return Event(stream, "PriceRead", {"n": n}, T0 + timedelta(seconds=n))


def test_derived_id_is_a_pure_function_of_stream_position_and_time() -> None:
    """The same inputs give the same ULID; the time part sorts by ``moment``."""
    a = derived_id("weights/s1", 0, T0)
    assert a == derived_id("weights/s1", 0, T0)
    assert len(a) == 26
    assert a != derived_id("weights/s1", 1, T0)
    assert a != derived_id("weights/s2", 0, T0)
    assert a[:10] == derived_id("other", 7, T0)[:10]  # same millisecond, same time part
    assert derived_id("x", 0, T0) < derived_id("x", 0, T0 + timedelta(milliseconds=1))
    assert derived_id("x", 0, T0) == "01KE7AR4C0" + derived_id("x", 0, T0)[10:]


def test_derived_id_refuses_what_it_cannot_derive_from() -> None:
    """A negative position or a naive moment is refused; dates before 1970 are clamped to 0."""
    with pytest.raises(ValueError, match="negative"):
        derived_id("s", -1, T0)
    with pytest.raises(ValueError, match="naive"):
        derived_id("s", 0, datetime(2026, 1, 5))  # noqa: DTZ001 - the point of the test
    assert derived_id("s", 0, datetime(1960, 1, 1, tzinfo=UTC)).startswith("0000000000")
    assert derived_id("s", 0, datetime(9999, 1, 1, tzinfo=UTC)) > derived_id("s", 0, T0)


def test_with_id_changes_only_the_id() -> None:
    """``Event.with_id`` keeps every other field; a malformed id is refused."""
    event = _event("s", 1)
    copy = event.with_id(derived_id("s", 0, event.occurred_at))
    assert copy.id != event.id
    assert (copy.stream, copy.kind, copy.payload_json, copy.occurred_at) == (
        event.stream,
        event.kind,
        event.payload_json,
        event.occurred_at,
    )
    with pytest.raises(ValueError, match="not a ULID"):
        event.with_id("nope")


def test_same_events_into_fresh_stores_end_on_the_same_head(db_url: str, tmp_path: Path) -> None:
    """C-4: the same batches, made with fresh random ids each time, give one chain head."""
    heads = []
    for url in (db_url, f"sqlite:///{tmp_path}/second.db"):
        with open_store(url) as base:
            store = base.deriving_ids()
            assert store.derives_ids
            assert not base.derives_ids
            store.append([_event("a", 0), _event("b", 1), _event("a", 2)])
            store.append([_event("a", 3)])
            stored = list(base.events())
            assert [s.event.id for s in stored if s.event.stream == "a"] == [
                derived_id("a", i, T0 + timedelta(seconds=n)) for i, n in enumerate((0, 2, 3))
            ]
            assert verify(base).ok
            heads.append(base.head())
    assert heads[0] == heads[1]  # SQLite and PostgreSQL agree too


def test_an_event_draws_its_id_once_and_only_when_read(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event made without an id draws one on its first read and keeps it; a
    deriving store replaces it unread, so a replay draws no random id at all."""
    drawn: list[str] = []

    def counting() -> str:
        drawn.append(str(ULID()))
        return drawn[-1]

    monkeypatch.setattr("tradeleague.events.base.new_id", counting)
    events = [_event("a", 0), _event("a", 1)]
    with open_store(sqlite_url) as base:
        stored = base.deriving_ids().append(events)
        assert drawn == []
        assert [s.event.id for s in stored] == [
            derived_id("a", i, T0 + timedelta(seconds=i)) for i in (0, 1)
        ]
        assert drawn == []
        plain = base.append([_event("b", 2)])
    assert len(drawn) == 1
    assert plain[0].event.id == drawn[0]  # a store that does not derive keeps the drawn id
    first = events[0].id
    assert first == events[0].id == drawn[1]
    assert len(drawn) == 2
    assert events[0] == Event("a", "PriceRead", {"n": 0}, T0, id=first)


def test_positions_count_events_appended_by_others(db_url: str) -> None:
    """Another appender in between moves the stream's position on: no id is reused."""
    with open_store(db_url) as base:
        store = base.deriving_ids()
        store.append([_event("a", 0)])
        base.append([_event("a", 1), _event("b", 2)])  # a live append, new ULIDs
        other = base.deriving_ids()
        other.append([_event("a", 3)])  # a second deriving view, its own cache
        store.append([_event("a", 4), _event("b", 5)])
        ids = [s.event.id for s in base.events(stream="a")]
        assert ids[0] == derived_id("a", 0, T0)
        assert ids[2] == derived_id("a", 2, T0 + timedelta(seconds=3))
        assert ids[3] == derived_id("a", 3, T0 + timedelta(seconds=4))
        assert [s.event.id for s in base.events(stream="b")][1] == derived_id(
            "b", 1, T0 + timedelta(seconds=5)
        )


def test_a_rolled_back_append_does_not_move_the_position(db_url: str) -> None:
    """Positions of a batch whose transaction rolled back are used again, not skipped."""
    with open_store(db_url) as base:
        store = base.deriving_ids()
        store.append([_event("a", 0)])

        def append_then_fail() -> None:
            with store.transaction("append", write=True) as conn:
                store.append_in(conn, [_event("a", 1)])
                raise RuntimeError("the caller's own work failed")

        with pytest.raises(RuntimeError):
            append_then_fail()
        store.append([_event("a", 2)])
        ids = [s.event.id for s in base.events(stream="a")]
        assert ids == [derived_id("a", 0, T0), derived_id("a", 1, T0 + timedelta(seconds=2))]


def test_a_failed_insert_does_not_move_the_position(sqlite_url: str) -> None:
    """An append refused for a duplicate id leaves the stream's next position where it was."""
    with open_store(sqlite_url) as base:
        clash = derived_id("a", 1, T0 + timedelta(seconds=1))
        base.append([_event("a", 0).with_id(clash)])  # a foreign event holds position 1's id
        store = base.deriving_ids()
        with pytest.raises(StoreError, match="already in the log"):
            store.append([_event("a", 1)])
        store.append([_event("a", 2)])
        ids = [s.event.id for s in base.events(stream="a")]
        assert ids == [clash, derived_id("a", 1, T0 + timedelta(seconds=2))]


@given(st.binary(min_size=16, max_size=16))
def test_ulid_text_matches_the_ulid_package(raw: bytes) -> None:
    """C-1: derived ids are written as the ``ulid`` package writes a ULID, byte for byte."""
    assert _ulid_text(int.from_bytes(raw, "big")) == str(ULID.from_bytes(raw))
