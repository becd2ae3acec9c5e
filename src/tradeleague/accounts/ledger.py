"""The store and the clock that services share, and short transactions on them.

Each service call is one short database transaction. A state change takes
the database's write lock: PostgreSQL locks the rows it changes
(``SELECT ... FOR UPDATE``), SQLite begins with ``BEGIN IMMEDIATE``, and on
SQLite the threads of one process also queue on one lock first, so they
wait their turn instead of polling the database's busy handler (S-SVC-2).
Every part of a service that writes (accounts, keys, a format's runs,
sign-in) writes through the same `Ledger`, so they queue together.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, Final

import sqlalchemy as sa

from tradeleague.clock import Clock
from tradeleague.store import Store

__all__ = ["CACHE_LIMIT", "Ledger", "fast_sqlite"]

CACHE_LIMIT: Final = 10_000
"""The most entries a per-process cache (parsed run states, checked keys) holds."""


def fast_sqlite(engine: sa.Engine) -> None:
    """Use SQLite's write-ahead log with ``synchronous=NORMAL`` on this engine.

    Each commit then appends to the log without an fsync (the log is synced at
    checkpoints): durable across a crash of the process, and ~50x faster per
    step than the rollback journal. Readers no longer wait for the writer.
    """

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    engine.dispose()


class Ledger:
    """A store, a clock and the transactions a service's calls run in.

    Parameters
    ----------
    store
        The event store (its engine also holds the services' tables). On
        SQLite it is switched to the write-ahead log (`fast_sqlite`).
    clock
        Where "now" comes from (a `ReplayClock` in tests).
    """

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.sqlite = store.backend == "sqlite"
        if self.sqlite:
            fast_sqlite(store.engine)
        self._writer = threading.Lock()

    @contextmanager
    def write(self, doing: str, *, enclosing: bool = False) -> Iterator[sa.Connection]:
        """Yield a connection in a writer's transaction (``BEGIN IMMEDIATE`` on SQLite).

        On SQLite the threads of this process also queue on a lock first, so
        they wait their turn instead of polling the database's busy handler.
        ``enclosing``: the writes and reads made inside the block join this
        transaction and commit with it (`Store.transaction`); inside such a
        block, a write is a savepoint of it and takes no lock of its own.
        """
        joined = self.store.joining(write=True)
        guard = self._writer if self.sqlite and not joined else nullcontext()
        with guard, self.store.transaction(doing, write=True, enclosing=enclosing) as connection:
            yield connection

    def after_commit(self, work: Callable[[], None]) -> None:
        """Run ``work`` once the enclosing transaction commits, or now if none is open.

        For what a process keeps of the state it wrote: it must never keep a
        write that an enclosing transaction then rolled back.
        """
        self.store.after_commit(work)

    @contextmanager
    def read(self, doing: str) -> Iterator[sa.Connection]:
        """Yield a connection in a read transaction."""
        with self.store.transaction(doing) as connection:
            yield connection
