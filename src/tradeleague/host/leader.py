"""Exactly one host leads a store (issue 12).

- PostgreSQL: a session advisory lock held on a connection of its own for the
  host's whole life. The server drops it the moment that connection dies (a
  crash, ``kill -9``), so a standby polling for it leads within seconds. The
  holder is named by the ``application_name`` it set (``tradeleague-host
  pid=N``).
- SQLite is single-host: an exclusive ``flock`` beside the database file,
  which the kernel drops when the process dies; a second host exits naming
  the pid written in it. An in-memory database has one process by definition.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO

import sqlalchemy as sa

from tradeleague.errors import ConfigError
from tradeleague.store import Store
from tradeleague.store.engine import parse_url
from tradeleague.store.writers import still_there

__all__ = ["LOCK_KEY", "Leadership", "NotLeader"]

LOCK_KEY = 0x74726164656C6561 & 0x7FFFFFFFFFFFFFFF
"""The advisory lock key of a host (``trade lea`` in ASCII)."""


class NotLeader(ConfigError):
    """Another host leads this store."""


class Leadership:
    """Take, wait for and hold the store's leadership."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._connection: sa.Connection | None = None
        self._file: IO[str] | None = None
        self.backend = store.backend

    def try_lead(self) -> bool:
        """Take the leadership if free; return whether this process holds it."""
        if self.backend == "postgresql":
            return self._try_postgres()
        return self._try_sqlite()

    def holder(self) -> str:
        """Describe the process that holds the leadership (or ``unknown``)."""
        if self.backend == "postgresql":
            with self.store.engine.connect() as connection:
                row = connection.execute(
                    sa.text(
                        "SELECT a.pid, a.application_name, a.client_addr FROM pg_locks l "
                        "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
                        "AND l.granted AND l.objid = :lo AND l.classid = :hi "
                        # advisory locks are per database: another league's host on the
                        # same server holds its own, and is not this store's holder
                        "AND l.database = (SELECT oid FROM pg_database "
                        "WHERE datname = current_database())"
                    ),
                    {"lo": LOCK_KEY & 0xFFFFFFFF, "hi": LOCK_KEY >> 32},
                ).first()
            if row is None:
                return "unknown"
            return f"{row[1] or 'a session'} (server pid {row[0]})"
        path = self._lock_path()
        try:
            text = path.read_text(encoding="utf-8").strip() if path is not None else ""
        except OSError:
            text = ""
        return f"tradeleague-host pid={text}" if text else "unknown"

    async def wait(self, poll_s: float = 1.0) -> None:
        """Wait until this process leads (a standby's loop)."""
        while not self.try_lead():
            await asyncio.sleep(poll_s)

    def release(self) -> None:
        """Give the leadership up (also done by the process's death)."""
        if self._connection is not None:
            # invalidate, not close: a closed connection goes back to the pool with its
            # session, and the session's lock, still alive
            with contextlib.suppress(Exception):
                self._connection.invalidate()
            self._connection = None
        if self._file is not None:
            path = self._lock_path()
            with contextlib.suppress(Exception):
                if path is not None:
                    path.unlink()  # while still held: a host waiting on it claims a new one
                fcntl.flock(self._file, fcntl.LOCK_UN)
                self._file.close()
            self._file = None

    def _try_postgres(self) -> bool:
        if self._connection is not None:
            return True
        connection = self.store.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            connection.execute(
                sa.text(f"SET application_name = 'tradeleague-host pid={os.getpid()}'")
            )
            got = connection.execute(
                sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK_KEY}
            ).scalar()
        except Exception:
            connection.close()
            raise
        if got:
            self._connection = connection
            return True
        connection.close()
        return False

    def _lock_path(self) -> Path | None:
        database = parse_url(self.store.url).database if self.backend == "sqlite" else None
        if not database or database == ":memory:":
            return None
        return Path(f"{database}.host-lock")

    def _try_sqlite(self) -> bool:
        if self._file is not None:
            return True
        path = self._lock_path()
        if path is None:
            return True
        handle = path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        if not still_there(handle, path):  # its leader removed it as it stopped
            handle.close()
            return False  # asked again at the next try, on the file now there
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle
        return True
