"""Transactions on the store: one per service call, and one that encloses the calls inside it.

`Store.transaction` opens a transaction on a pooled connection. One opened
with ``enclosing=True`` encloses the transactions opened inside its block in
the same context (the same thread, or the same task) on the same engine:
each of those *joins* it instead of opening a second one: a read
gets the open connection; a write gets a savepoint on it (so an error inside
the inner block undoes only what the inner block wrote, as a transaction of
its own would have), and commits only when the outermost transaction does.
This is what lets a caller wrap work that opens its own transactions and
record something in the very transaction that work commits in: the response
of an idempotent request and the effect it guards commit together, or
neither does (`tradeleague.accounts.idempotency`, S-SVC-1). A write inside
an open *read* transaction is not joined (SQLite cannot turn a reader into a
writer safely); it opens its own.

`after_commit` defers work that must see only committed state (a cache of
what was written) to after the outermost commit; a rollback drops it.

`CommitFault` is the seam fault-injection tests use: a store's
``commit_fault`` is called at the outermost commit of each write transaction,
once just before the commit (``"commit"``) and once just after it
(``"committed"``), with the connection; whatever it raises fails the
transaction there, as a database connection lost at that moment would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import URL

from tradeleague.store.engine import WRITE, translate_errors

__all__ = ["CommitFault", "CommitPoint", "after_commit", "joining", "open_transaction"]

CommitPoint = Literal["commit", "committed"]
"""Where a write transaction's commit is: just before it, or just after it."""

CommitFault = Callable[[CommitPoint, sa.Connection], None]
"""Called at each outermost write commit, before and after it (fault-injection tests)."""


@dataclass
class _Open:
    """The transaction open in this context: its engine, connection, kind and deferred work."""

    engine: sa.Engine
    connection: sa.Connection
    write: bool
    after: list[Callable[[], None]] = field(default_factory=list)


_OPEN: ContextVar[_Open | None] = ContextVar("tradeleague_open_transaction", default=None)


def joining(engine: sa.Engine, write: bool) -> bool:
    """Return whether a transaction on ``engine`` opened now would join an open one."""
    current = _OPEN.get()
    return current is not None and current.engine is engine and (current.write or not write)


def after_commit(engine: sa.Engine, work: Callable[[], None]) -> None:
    """Run ``work`` once the open transaction on ``engine`` commits (now, if none is open).

    A rollback drops it. Meant for caches of written state: they must never
    hold what was not committed.
    """
    current = _OPEN.get()
    if current is not None and current.engine is engine:
        current.after.append(work)
    else:
        work()


@contextmanager
def open_transaction(
    engine: sa.Engine,
    url: URL,
    doing: str,
    *,
    write: bool,
    enclosing: bool = False,
    fault: CommitFault | None = None,
) -> Iterator[sa.Connection]:
    """Yield a connection inside a transaction, joining an enclosing one (see the module notes).

    Driver errors become `tradeleague.errors.StoreError` naming ``doing``.
    """
    current = _OPEN.get()
    if current is not None and current.engine is engine and (current.write or not write):
        with translate_errors(doing, url):
            if not write:
                yield current.connection
                return
            kept = len(current.after)
            try:
                with current.connection.begin_nested():
                    yield current.connection
            except BaseException:
                del current.after[kept:]  # what the undone block deferred is undone with it
                raise
        return
    with translate_errors(doing, url), engine.connect() as connection:
        if write:
            connection.execution_options(**{WRITE: True})
        opened = _Open(engine, connection, write)
        token = _OPEN.set(opened if enclosing else None)
        try:
            with connection.begin():
                yield connection
                if write and fault is not None:
                    fault("commit", connection)
            if write and fault is not None:
                fault("committed", connection)
        finally:
            _OPEN.reset(token)
    for work in opened.after:
        work()
