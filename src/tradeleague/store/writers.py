"""One writer per stream: a lock its holder keeps while it appends, freed when it dies.

A season (a stream) is written by one replay or host at a time. The first
append of a replay claims its stream; a second process that tries to write
the same stream is refused with a message naming the holder, before it
writes anything. The lock is one the operating system frees when its holder
dies, so a run killed with ``kill -9`` can be resumed at once:

- PostgreSQL: a session advisory lock (``pg_try_advisory_lock``) on a
  connection held open for as long as the stream is claimed;
- SQLite: an exclusive ``flock`` on a small file per stream in a folder
  beside the database (``<file>-writers/``, which git ignores), removed
  with its folder when its writer finishes; an in-memory database has no
  second process to exclude.

The holder (host, process id, since when) is also written to the
``stream_writers`` table so the refusal can say who holds the stream.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import os
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import URL

from tradeleague.errors import StoreError
from tradeleague.store.schema import UtcDateTime

__all__ = ["SEEN_KEPT", "Writers", "holder_name", "still_there"]

SEEN_KEPT: Final = 4096
"""The most read-ends of unclaimed streams a process keeps (see `Writers.saw`)."""
_CLAIM_TRIES: Final = 100
"""How often a claim retries when the lock file it opened was removed by its finishing holder."""

_WRITERS = sa.table(
    "stream_writers",
    sa.column("stream", sa.String),
    sa.column("holder", sa.String),
    sa.column("since", UtcDateTime),
)


def holder_name() -> str:
    """Return how this process is named to a second writer: ``process PID on HOST``."""
    return f"process {os.getpid()} on {socket.gethostname()}"


def _digest(stream: str) -> bytes:
    return hashlib.sha256(stream.encode("utf-8")).digest()


@dataclass
class Writers:
    """The streams this process holds the single writer of, on one database.

    Shared by a store and the stores derived from it; `release_all` frees
    every lock (closing the store does it).
    """

    engine: sa.Engine
    url: URL
    held: dict[str, object] = field(default_factory=dict)
    seen: dict[str, tuple[int, str | None]] = field(default_factory=dict)

    def saw(self, stream: str, seq: int) -> None:
        """Note that ``stream`` ends at ``seq`` as this process last read it.

        A stream read before it is claimed (a replay resuming) keeps what was
        read, so its first append after the claim is checked too. Past
        `SEEN_KEPT` notes, those of streams not claimed are dropped: a server
        that reads every run's stream must not keep one note per run forever.
        """
        if len(self.seen) >= SEEN_KEPT and stream not in self.seen:
            self.seen = {s: v for s, v in self.seen.items() if s in self.held}
        self.seen[stream] = (seq, None)

    def wrote(self, last: dict[str, tuple[int, str]]) -> None:
        """Note the last ``(seq, event id)`` of each claimed stream this process just appended.

        Only a claimed stream's expectation is ever read (`expected`), so an
        append to any other (a live round, a scenario run) leaves no note. The
        caller's transaction may still roll back: the expectation then holds
        only if that event is in the log (see `expected`).
        """
        self.seen.update((s, v) for s, v in last.items() if s in self.held)

    def expected(self, stream: str) -> tuple[int, str | None] | None:
        """Return where a claimed ``stream`` must still end for an append, if known.

        ``(seq, event id)``: the id of our own last append to it, to tell a
        rolled-back append (not in the log: no expectation) from a stream another
        writer moved on; ``None`` as the id when the seq was read, not written.
        """
        return self.seen.get(stream) if stream in self.held else None

    def claim(self, stream: str, connection: sa.Connection | None = None) -> None:
        """Become the single writer of ``stream`` (a no-op if this process already is).

        ``connection``, if given, is an open write transaction the holder's row is
        written in (it commits with the caller's work); else a short one of its own.
        On PostgreSQL the lock is taken and the row written and committed on the
        lock's own connection behind a per-stream gate (`_claim_pg`), so a process
        refused at any moment names this one, not an earlier holder or "another
        process".

        Raises
        ------
        StoreError
            In one sentence naming the holder, if another process writes it.
        """
        if stream in self.held:
            return
        if self.engine.dialect.name == "postgresql":
            self.held[stream] = self._claim_pg(stream)
            return
        lock = self._claim_file(stream, connection)
        self.held[stream] = lock
        if connection is not None:
            self._record(connection, stream)
        else:
            with self.engine.connect() as own, own.begin():
                self._record(own, stream)

    def _claim_pg(self, stream: str) -> tuple[sa.Connection, int]:
        """Take the stream's session lock and record the holder, behind the stream's gate.

        The gate is a transaction lock on a second key: a claimant holds it from
        before its try until its holder row is committed, so a claimant that is
        refused reads the row only once the winner has written it (never none,
        never an earlier holder's).
        """
        digest = _digest(stream)
        key = int.from_bytes(digest[:8], "big", signed=True)
        gate = int.from_bytes(digest[8:16], "big", signed=True)
        connection = self.engine.connect()
        try:
            with connection.begin():  # the gate is freed as this commits
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(:g)"), {"g": gate})
                got = connection.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key})
                taken = bool(got.scalar_one())
                who = "" if taken else self._holder(connection, stream)
                if taken:
                    self._record(connection, stream)
        except BaseException:
            connection.close()
            raise
        if not taken:
            connection.close()
            raise _refusal(stream, who)
        return connection, key

    def _claim_file(self, stream: str, caller: sa.Connection | None) -> IO[bytes] | None:
        database = self.url.database
        if not database or database == ":memory:":
            return None
        folder = Path(f"{database}-writers")
        path = folder / f"{_digest(stream).hex()[:32]}.lock"
        for _ in range(_CLAIM_TRIES):
            folder.mkdir(exist_ok=True)
            try:
                handle = path.open("ab")
            except FileNotFoundError:  # a writer that finished removed the folder: again
                continue
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                self._refuse(stream, caller)
            except BaseException:
                handle.close()
                raise
            if still_there(handle, path):
                return handle
            handle.close()  # its holder removed the file as it finished: claim the new one
        raise StoreError(f"could not claim the stream {stream!r}: its lock file kept changing")

    def _record(self, connection: sa.Connection, stream: str) -> None:
        connection.execute(sa.delete(_WRITERS).where(_WRITERS.c.stream == stream))
        connection.execute(
            sa.insert(_WRITERS).values(stream=stream, holder=holder_name(), since=datetime.now(UTC))
        )

    def _refuse(self, stream: str, caller: sa.Connection | None) -> None:
        if caller is not None:
            who = self._holder(caller, stream)
        else:
            with self.engine.connect() as connection:
                who = self._holder(connection, stream)
        raise _refusal(stream, who)

    @staticmethod
    def _holder(connection: sa.Connection, stream: str) -> str:
        query = sa.select(_WRITERS.c.holder, _WRITERS.c.since).where(_WRITERS.c.stream == stream)
        row = connection.execute(query).one_or_none()
        if row is None:
            return "another process"
        return f"{row.holder} (since {row.since:%Y-%m-%d %H:%M:%S} UTC)"

    def release_all(self) -> None:
        """Free every lock this process holds (it stops being any stream's writer)."""
        held, self.held = self.held, {}
        for lock in held.values():
            with contextlib.suppress(Exception):
                if isinstance(lock, tuple):
                    connection, key = lock
                    with contextlib.closing(connection):
                        connection.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                        connection.commit()
                elif isinstance(lock, io.IOBase):
                    _remove_lock(lock)


def _refusal(stream: str, who: str) -> StoreError:
    return StoreError(
        f"The stream {stream!r} is being written by {who}; "
        "wait for it to finish or stop it, then run this again to resume."
    )


def still_there(handle: IO[Any], path: Path) -> bool:
    """Whether the locked ``handle`` is still the file at ``path`` (not one removed since)."""
    try:
        return os.fstat(handle.fileno()).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _remove_lock(handle: io.IOBase) -> None:
    """Remove a held lock file, then free the lock, then the folder if no other lock is in it.

    The file goes while the lock is held, so a process that opened it meanwhile
    sees it gone once it locks it (`still_there`) and claims a new one.
    """
    name = getattr(handle, "name", None)
    if not isinstance(name, str):
        handle.close()
        return
    path = Path(name)
    with contextlib.suppress(OSError):
        path.unlink()
    handle.close()  # closing the file frees the flock
    with contextlib.suppress(OSError):
        path.parent.rmdir()  # only when empty: another stream's writer may hold a lock
