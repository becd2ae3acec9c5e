"""Appending and reading the hash-chained log, on SQLite and PostgreSQL (SPEC C-4, C-5)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from tradeleague.errors import StoreError
from tradeleague.events import Event, EventKind
from tradeleague.ids import derived_id
from tradeleague.store import GENESIS_HASH, chain_hash, event_store, open_store, verify
from tradeleague.store.chain import StoredEvent
from tradeleague.store.engine import WRITE
from tradeleague.store.event_store import _row
from tradeleague.store.schema import chain_head, events

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)


def _model_call(stream: str, n: int) -> Event:
    payload: dict[str, object] = {
        "request": {"model": "m-1", "messages": [{"role": "user", "content": f"q{n}"}]},
        "response": f"answer {n} ü",
        "latency_us": 1200 + n,
        "tokens": {"in": 10, "out": n},
    }
    return Event(stream, EventKind.MODEL_CALLED, payload, T0 + timedelta(microseconds=n))


def test_append_then_read_round_trips(db_url: str) -> None:
    """C-4, C-5: what was appended (a model call's request and raw answer) reads back exactly."""
    batch = [_model_call("season-1", 1), _model_call("season-2", 2), _model_call("season-1", 3)]
    with open_store(db_url) as store:
        stored = store.append(batch)
        read = list(store.events())
        assert [s.seq for s in stored] == [1, 2, 3]
        assert read == stored
        assert [s.event for s in read] == batch
        assert read[0].event.occurred_at == T0 + timedelta(microseconds=1)
        assert [s.seq for s in store.events(stream="season-1")] == [1, 3]
        assert [s.seq for s in store.events(after_seq=1)] == [2, 3]
        assert [s.seq for s in store.events(batch=2)] == [1, 2, 3]
        assert store.count() == 3
        assert store.count("season-2") == 1
        assert store.append([]) == []


def test_each_hash_covers_the_one_before(db_url: str) -> None:
    """C-4: seq runs 1, 2, 3...; each hash is sha256 over the previous hash and the content."""
    with open_store(db_url) as store:
        store.append([_model_call("s", 1)])
        store.append([_model_call("s", 2), _model_call("s", 3)])
        read = list(store.events())
        prev = GENESIS_HASH
        for expected_seq, stored in enumerate(read, start=1):
            assert stored.seq == expected_seq
            assert stored.prev_hash == prev
            assert stored.hash == chain_hash(prev, stored.seq, stored.event)
            prev = stored.hash
        assert store.head().seq == 3
        assert store.head().hash == prev
        assert len({s.hash for s in read}) == 3


def test_hash_depends_on_every_field() -> None:
    """C-4: changing seq, stream, kind, time, payload or the link changes the hash."""
    base = _model_call("s", 1)
    h = chain_hash(GENESIS_HASH, 1, base)
    variants = [
        chain_hash(GENESIS_HASH, 2, base),
        chain_hash("1" * 64, 1, base),
        chain_hash(GENESIS_HASH, 1, Event("t", base.kind, base.payload, base.occurred_at, base.id)),
        chain_hash(GENESIS_HASH, 1, Event("s", "Other", base.payload, base.occurred_at, base.id)),
        chain_hash(
            GENESIS_HASH,
            1,
            Event(
                "s", base.kind, base.payload, base.occurred_at + timedelta(microseconds=1), base.id
            ),
        ),
        chain_hash(GENESIS_HASH, 1, Event("s", base.kind, {"x": 1}, base.occurred_at, base.id)),
    ]
    assert h not in variants
    assert len(set(variants)) == len(variants)


def test_a_duplicate_event_is_refused_and_nothing_is_written(db_url: str) -> None:
    """C-4: an event is recorded once; a failing batch leaves the log as it was."""
    first = _model_call("s", 1)
    with open_store(db_url) as store:
        store.append([first])
        head = store.head()
        with pytest.raises(StoreError, match="already"):
            store.append([_model_call("s", 2), first])
        assert store.head() == head
        assert store.count() == 1


def test_concurrent_appenders_never_fork_the_chain(db_url: str) -> None:
    """C-4: two writers (separate stores, as two processes would be) serialise on the chain head."""
    per_writer, batches = 3, 6

    start = threading.Barrier(2)

    def write(name: str, errors: list[BaseException]) -> None:
        try:
            with open_store(db_url) as store:
                start.wait(timeout=10)
                for b in range(batches):
                    store.append([_model_call(name, b * per_writer + i) for i in range(per_writer)])
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    with open_store(db_url) as store:
        errors: list[BaseException] = []
        threads = [threading.Thread(target=write, args=(n, errors)) for n in ("w1", "w2")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        report = verify(store)
        assert report.ok, report.mismatches
        assert report.events == 2 * per_writer * batches
        assert report.streams == 2
        with store.engine.connect() as conn:
            prevs = conn.execute(sa.text("SELECT count(DISTINCT prev_hash) FROM events")).scalar()
        assert prevs == report.events


def test_an_appender_waits_for_the_chain_head_lock(db_url: str) -> None:
    """C-4: while another transaction holds the chain head, an append waits, then links after it."""
    with open_store(db_url) as store, open_store(db_url) as other:
        done = threading.Event()

        def append() -> None:
            other.append([_model_call("s", 2)])
            done.set()

        with store.engine.connect() as conn:
            conn.execution_options(**{WRITE: True})
            with conn.begin():
                conn.execute(sa.select(chain_head).with_for_update()).one()
                worker = threading.Thread(target=append)
                worker.start()
                assert not done.wait(0.4)
        worker.join(timeout=30)
        assert done.is_set()
        assert store.head().seq == 1
        assert verify(store).ok


def test_append_in_shares_the_callers_transaction(db_url: str) -> None:
    """C-4: append_in links into the same chain as append and commits or rolls back with the caller.

    A caller writes its own row and the events explaining it in one transaction
    (the scenario service's step does this); a failure after the append leaves
    neither the events nor the chain head behind.
    """
    with open_store(db_url) as store:
        store.append([_model_call("s", 1)])
        with store.transaction("t", write=True) as conn:
            assert store.append_in(conn, []) == []
            stored = store.append_in(conn, [_model_call("s", 2), _model_call("s", 3)])
        assert [s.seq for s in stored] == [2, 3]
        assert store.head() == type(store.head())(3, stored[-1].hash)
        head = store.head()

        def fail_after_appending() -> None:
            with store.transaction("t", write=True) as conn:
                store.append_in(conn, [_model_call("s", 4)])
                raise RuntimeError("caller failed after appending")

        with pytest.raises(RuntimeError, match="caller failed"):
            fail_after_appending()
        assert store.head() == head
        assert store.count() == 3
        with pytest.raises(StoreError, match="already"), store.transaction("t", write=True) as c:
            store.append_in(c, [_model_call("s", 5), stored[0].event])
        assert store.head() == head
        after = store.append([_model_call("s", 6)])
        assert after[0].seq == 4
        assert after[0].prev_hash == head.hash
        report = verify(store)
        assert report.ok, report.mismatches
        assert report.events == 4


def test_sqlite_rows_are_stored_as_the_core_insert_stores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-4: the driver-level SQLite insert writes the very bytes the Core statement wrote."""
    moments = [T0, T0 + timedelta(microseconds=1), datetime(2026, 7, 1, 9, 30, 5, 120, tzinfo=UTC)]
    batch = [
        Event(
            "s/é", EventKind.MODEL_CALLED, {"n": i, "text": "ü \u2028"}, m, id=derived_id("s", i, m)
        )
        for i, m in enumerate(moments)
    ]

    def dump(url: str) -> list[tuple[object, ...]]:
        with open_store(url) as store:
            store.append(batch)
            with store.transaction("read") as connection:
                query = "SELECT *, typeof(occurred_at), typeof(seq) FROM events ORDER BY seq"
                return [tuple(r) for r in connection.exec_driver_sql(query)]

    quick = dump(f"sqlite:///{tmp_path / 'quick.db'}")

    def core(connection: sa.Connection, stored: list[StoredEvent]) -> None:
        connection.execute(sa.insert(events), [_row(s) for s in stored])

    monkeypatch.setattr(event_store, "_insert", core)
    assert dump(f"sqlite:///{tmp_path / 'core.db'}") == quick
