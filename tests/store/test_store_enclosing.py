"""An enclosing transaction: what runs inside it commits with it or not at all (S-SVC-1).

The idempotency layer records a request's answer in the transaction that
commits the request's effect; these hold the store's part of that, on SQLite
and PostgreSQL: inner transactions join the enclosing one, an inner block
that fails undoes only its own writes, deferred work runs only after the
commit, and the commit seam cuts a commit before it (nothing kept) or after
it (all kept, the caller told it failed).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from tradeleague.errors import StoreError
from tradeleague.events import Event, EventKind
from tradeleague.store import Store, open_store
from tradeleague.store.transactions import CommitPoint

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)


def _event(n: int) -> Event:
    return Event("season-e", EventKind.MODEL_CALLED, {"n": n}, T0)


def _refused(store: Store, done: list[str], opened: list[sa.Connection]) -> None:
    """Write inside a transaction, defer work, then fail, as a refused request does."""
    with store.transaction("write", write=True) as inner:
        opened.append(inner)
        store.append([_event(2)])
        store.after_commit(lambda: done.append("undone block"))
        raise ValueError("refused")


def _failed_request(store: Store, done: list[str]) -> None:
    """Write and defer work in an enclosing transaction that then fails."""
    with store.transaction("write", write=True, enclosing=True):
        store.append([_event(3)])
        store.after_commit(lambda: done.append("rolled back"))
        raise RuntimeError("the request failed")


def _request(store: Store, kept: list[int]) -> None:
    with store.transaction("write", write=True, enclosing=True):
        store.append([_event(1)])
        store.after_commit(lambda: kept.append(1))


def test_inner_transactions_join_the_enclosing_one(db_url: str) -> None:
    """S-SVC-1: inner writes commit with the enclosing transaction; a failed one is undone alone."""
    done: list[str] = []
    with open_store(db_url) as store:
        with store.transaction("write", write=True, enclosing=True) as outer:
            assert store.joining(write=True)
            store.append([_event(1)])
            opened: list[sa.Connection] = []
            with pytest.raises(ValueError, match="refused"):
                _refused(store, done, opened)
            assert opened == [outer]
            with store.transaction("read") as read:
                assert read is outer
                assert store.count("season-e") == 1, "the inner block's write was undone"
            store.after_commit(lambda: done.append("kept"))
            assert done == [], "deferred work waits for the commit"
        assert done == ["kept"]
        assert [e.event.payload["n"] for e in store.events("season-e")] == [1]

        with pytest.raises(RuntimeError, match="failed"):
            _failed_request(store, done)
        assert store.count("season-e") == 1, "nothing of a rolled-back request is kept"
        assert done == ["kept"]
        assert not store.joining(write=False), "nothing stays open"


@pytest.mark.parametrize("point", ["commit", "committed"])
def test_the_commit_seam_cuts_before_or_after_the_commit(db_url: str, point: CommitPoint) -> None:
    """S-SVC-1: cut before its commit a transaction keeps nothing; cut after, everything."""
    with open_store(db_url) as store:

        def cut(at: CommitPoint, conn: sa.Connection) -> None:
            if at == point:
                conn.connection.dbapi_connection.close()  # type: ignore[union-attr]
                conn.exec_driver_sql("SELECT 1")  # the driver's error: the connection is gone

        store.commit_fault = cut
        kept: list[int] = []
        with pytest.raises(StoreError):
            _request(store, kept)
        store.commit_fault = None
        assert kept == [], "a cut transaction's deferred work never runs"
        assert store.count("season-e") == (1 if point == "committed" else 0)
