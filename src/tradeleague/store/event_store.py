"""The append-only, hash-chained event store (SPEC C-4, C-5; DESIGN principle 4).

`open_store` connects (SQLite file by default, PostgreSQL by URL) and brings
the schema to head. `Store.append` writes a batch of events in one
transaction, giving each the next global sequence number and its link in the
hash chain (`tradeleague.store.chain`). Appenders are serialised so the chain
never forks: on PostgreSQL each locks the single ``chain_head`` row
(``SELECT ... FOR UPDATE``), on SQLite each begins with ``BEGIN IMMEDIATE``.
The database itself rejects UPDATE, DELETE and TRUNCATE on ``events``.

An event keeps the ULID it was made with, except through a store made by
`Store.deriving_ids` (what replays append through): there each event's id is
derived from its stream and its place in that stream (`ids.derived_id`), so
the same replay into a fresh database writes the same bytes and ends on the
same chain head, and a resumed replay ends where an uninterrupted one does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import URL

from tradeleague.errors import StoreError
from tradeleague.events import Event
from tradeleague.ids import derived_id
from tradeleague.store import migrate
from tradeleague.store.chain import StoredEvent, chain_hash
from tradeleague.store.engine import (
    make_engine,
    mask_url,
    parse_url,
    resolve_url,
    translate_errors,
)
from tradeleague.store.rows import (
    BATCH,
    iter_rows,
    read_batch,
    remember_appended,
    row_to_stored,
)
from tradeleague.store.schema import chain_head, events, projections
from tradeleague.store.transactions import (
    CommitFault,
    after_commit,
    joining,
    open_transaction,
)
from tradeleague.store.writers import Writers

__all__ = ["ChainHead", "Store", "open_store"]

_LOCK_HEAD = (
    sa.select(chain_head.c.seq, chain_head.c.hash).where(chain_head.c.id == 1).with_for_update()
)


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The end of the chain: the last sequence number and its hash (0 and genesis if empty)."""

    seq: int
    hash: str


class Store:
    """A connection to one event log and its read models; make one with `open_store`.

    Use it as a context manager (or call `close`) to release its connections.
    """

    def __init__(
        self,
        engine: sa.Engine,
        url: URL,
        *,
        derive_ids: bool = False,
        writers: Writers | None = None,
    ) -> None:
        self._engine = engine
        self._url = url
        self._derive_ids = derive_ids
        # the streams this process is the single writer of, and the last seq of each as
        # this process last saw or wrote it (shared with the stores derived from this one)
        self._writers = writers if writers is not None else Writers(engine, url)
        # stream -> (the chain head hash after our last append, the stream's next position);
        # valid only while the head is still that hash (nobody appended since, nothing rolled back)
        self._positions: dict[str, tuple[str, int]] = {}
        self.commit_fault: CommitFault | None = None
        """Called before and after each outermost write commit: the fault-injection tests' seam."""

    def deriving_ids(self) -> Store:
        """Return a store on the same database whose appends derive each event's id.

        Every event appended through it gets the id `ids.derived_id` gives for its
        stream, its position in that stream and its ``occurred_at``; its other
        fields are kept. It shares this store's connections: closing either
        closes both.
        """
        return Store(self._engine, self._url, derive_ids=True, writers=self._writers)

    @property
    def derives_ids(self) -> bool:
        """Return whether appends derive ids from stream positions (see `deriving_ids`)."""
        return self._derive_ids

    @property
    def engine(self) -> sa.Engine:
        """Return the SQLAlchemy engine (for read models that live beside the log)."""
        return self._engine

    @property
    def url(self) -> str:
        """Return the database URL with any password masked."""
        return mask_url(self._url)

    @property
    def backend(self) -> str:
        """Return ``"sqlite"`` or ``"postgresql"``."""
        return self._url.get_backend_name()

    def claim(self, stream: str) -> None:
        """Become the single writer of ``stream`` until this store closes.

        A store made by `deriving_ids` claims each stream on its first append
        to it (a replay); a host claims its season before its first round. While
        claimed, every append to the stream also checks that the stream still
        ends where this process last saw it (optimistic concurrency), so a
        second writer that got past the lock fails instead of forking it.

        Raises
        ------
        StoreError
            In one sentence naming the holder, if another process writes it.
        """
        self._writers.claim(stream)

    def close(self) -> None:
        """Free every stream this process writes and release every pooled connection."""
        self._writers.release_all()
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def transaction(
        self, doing: str, *, write: bool = False, enclosing: bool = False
    ) -> Iterator[sa.Connection]:
        """Yield a connection inside one transaction; driver errors become `StoreError`.

        Parameters
        ----------
        doing
            A verb phrase for error messages ("append events to").
        write
            Begin as a writer (``BEGIN IMMEDIATE`` on SQLite).
        enclosing
            Let the transactions opened inside the block (in the same thread or
            task) join this one, a write as a savepoint: they commit with it or
            not at all (`tradeleague.store.transactions`). Opened inside such a
            block, a transaction joins it whatever this says.
        """
        with open_transaction(
            self._engine,
            self._url,
            doing,
            write=write,
            enclosing=enclosing,
            fault=self.commit_fault,
        ) as connection:
            yield connection

    def joining(self, *, write: bool) -> bool:
        """Return whether a transaction opened now would join one already open here."""
        return joining(self._engine, write)

    def after_commit(self, work: Callable[[], None]) -> None:
        """Run ``work`` once the open transaction commits (at once if none is open)."""
        after_commit(self._engine, work)

    def head(self) -> ChainHead:
        """Return the last sequence number and hash of the chain."""
        with self.transaction("read") as connection:
            row = connection.execute(sa.select(chain_head).where(chain_head.c.id == 1)).one()
        return ChainHead(int(row.seq), str(row.hash))

    def count(self, stream: str | None = None) -> int:
        """Return the number of events, in ``stream`` if given."""
        query = sa.select(sa.func.count()).select_from(events)
        if stream is not None:
            query = query.where(events.c.stream == stream)
        with self.transaction("read") as connection:
            return int(connection.execute(query).scalar_one())

    def append(self, new_events: Iterable[Event]) -> list[StoredEvent]:
        """Append ``new_events`` in order, in one transaction, and return them as stored.

        Raises
        ------
        StoreError
            If an event's id is already in the log (nothing is written), or the
            database fails.
        """
        batch = list(new_events)
        if not batch:
            return []
        with self.transaction("append events to", write=True) as connection:
            return self.append_in(connection, batch)

    def append_checked(
        self,
        new_events: Iterable[Event],
        check: Callable[[Callable[..., list[StoredEvent]]], None],
    ) -> list[StoredEvent]:
        """Append ``new_events`` if ``check`` passes, with no other append in between.

        The chain head is locked first (``BEGIN IMMEDIATE`` on SQLite, the
        head row ``FOR UPDATE`` on PostgreSQL), so every other appender waits;
        then ``check`` reads what it needs through the function it is given
        (``read(stream, kinds=None)``: a stream's events, of those kinds if
        given, read in this transaction) and raises to refuse, and
        the events are appended in the same transaction. This is how a rule
        over a stream that many processes write holds under concurrency (one
        visitor's call per name per round: two equal calls at once, one wins).

        Raises
        ------
        StoreError
            If the database fails; whatever ``check`` raises, nothing written.
        """
        batch = list(new_events)
        with self.transaction("append events to", write=True) as connection:
            connection.execute(_LOCK_HEAD).one()

            def read(stream: str, kinds: frozenset[str] | None = None) -> list[StoredEvent]:
                rows = iter_rows(connection, stream=stream, kinds=kinds)
                return [_stored(row) for row in rows]

            check(read)
            return self.append_in(connection, batch)

    def append_in(
        self, connection: sa.Connection, new_events: Iterable[Event]
    ) -> list[StoredEvent]:
        """Append ``new_events`` inside the caller's open transaction on ``connection``.

        The same work as `append` (lock the chain head, link and hash each
        event, insert, move the head), so a caller can change its own rows and
        log the events that explain the change in *one* transaction: both
        commit or neither does. Begin the transaction as a writer
        (`transaction` with ``write=True``) so that SQLite takes its write lock
        before the chain head is read.

        Parameters
        ----------
        connection
            A connection of this store's engine, inside a transaction the caller
            commits or rolls back.
        new_events
            The events, in order; an empty batch writes nothing.

        Returns
        -------
        list[StoredEvent]
            The events as stored, with their sequence numbers and hashes.

        Raises
        ------
        StoreError
            If an event's id is already in the log; the caller's transaction
            must then be rolled back (leaving the block does that).
        """
        batch = list(new_events)
        if not batch:
            return []
        if self._derive_ids:
            for stream in dict.fromkeys(e.stream for e in batch):
                self._writers.claim(stream, connection)
        head = connection.execute(_LOCK_HEAD).one()
        self._check_expected(connection, batch)
        seq, prev = int(head.seq), str(head.hash)
        old_head = prev
        positions: dict[str, int] = {}
        if self._derive_ids:
            batch = self._derive(connection, prev, batch, positions)
        stored: list[StoredEvent] = []
        for event in batch:
            seq += 1
            digest = chain_hash(prev, seq, event)
            stored.append(StoredEvent(seq, event, prev, digest))
            prev = digest
        try:
            _insert(connection, stored)
        except exc.IntegrityError:
            raise StoreError(
                f"Cannot append to {self.url}: an event id in this batch is already "
                "in the log (an event is recorded once)."
            ) from None
        connection.execute(
            sa.update(chain_head).where(chain_head.c.id == 1).values(seq=seq, hash=prev)
        )
        remember_appended(stored)
        self._writers.wrote({s.event.stream: (s.seq, s.event.id) for s in stored})
        if self._derive_ids:
            kept = {s: p for s, (h, p) in self._positions.items() if h == old_head}
            self._positions = {s: (prev, p) for s, p in (kept | positions).items()}
        return stored

    def _check_expected(self, connection: sa.Connection, batch: list[Event]) -> None:
        """Refuse ``batch`` if a claimed stream moved on since this process last saw it."""
        for stream in dict.fromkeys(e.stream for e in batch):
            known = self._writers.expected(stream)
            if known is None:
                continue
            expected, own_id = known
            query = sa.select(sa.func.max(events.c.seq)).where(events.c.stream == stream)
            found = int(connection.execute(query).scalar_one() or 0)
            if found != expected and own_id is not None:
                at = sa.select(events.c.event_id).where(events.c.seq == expected)
                if connection.execute(at).scalar() != own_id:
                    continue  # our own last append rolled back: nothing to expect
            if found != expected:
                raise StoreError(
                    f"Cannot append to {stream!r}: it ends at seq {found}, not {expected} as "
                    "this process last saw it, so another process wrote it; nothing was written."
                )

    def _derive(
        self,
        connection: sa.Connection,
        head: str,
        batch: list[Event],
        next_position: dict[str, int],
    ) -> list[Event]:
        """Return ``batch`` with each event's id derived from its place in its stream.

        ``next_position`` is filled with each stream's position after the batch;
        a stream's position is counted in the log unless this store appended the
        last events of the chain (its cache holds ``head``).
        """
        out: list[Event] = []
        for event in batch:
            stream = event.stream
            position = next_position.get(stream)
            if position is None:
                cached = self._positions.get(stream)
                if cached is not None and cached[0] == head:
                    position = cached[1]
                else:
                    query = sa.select(sa.func.count()).where(events.c.stream == stream)
                    position = int(connection.execute(query).scalar_one())
            out.append(event.with_id(derived_id(stream, position, event.occurred_at)))
            next_position[stream] = position + 1
        return out

    def replayed(self, stream: str) -> StoredEvent | None:
        """Return ``stream``'s last event when a replay wrote it (its id derived), else ``None``.

        An event appended through `deriving_ids` has the id ``derived_id`` gives
        its place in its stream and its time; a live event's id is new, and
        matches by chance with odds of one in 2**80.
        """
        position = self.count(stream) - 1
        if position < 0:
            return None
        query = sa.select(events).where(events.c.stream == stream)
        with self.transaction("read") as connection:
            row = connection.execute(query.order_by(events.c.seq.desc()).limit(1)).one()
        last = _stored(row)
        derived = derived_id(stream, position, last.event.occurred_at)
        return last if last.event.id == derived else None

    def streams(self, prefix: str = "") -> list[str]:
        """Return every stream that holds an event (those starting with ``prefix``), sorted."""
        query = sa.select(events.c.stream).distinct()
        if prefix:
            query = query.where(events.c.stream.startswith(prefix, autoescape=True))
        with self.transaction("read") as connection:
            rows = connection.execute(query).all()
        return sorted(str(r[0]) for r in rows)

    def events(
        self, stream: str | None = None, after_seq: int = 0, *, batch: int = BATCH
    ) -> Iterator[StoredEvent]:
        """Yield stored events with ``seq > after_seq`` in seq order, ``stream``'s only if given.

        Rows are read in batches, each in its own short transaction, so a long
        read never holds a lock.

        Raises
        ------
        StoreError
            If a row does not hold a well-formed event.
        """
        last = after_seq
        while True:
            with self.transaction("read events from") as connection:
                rows = read_batch(connection, stream=stream, after_seq=last, limit=batch)
            for row in rows:
                yield _stored(row)
            if rows:
                last = int(rows[-1].seq)
            if len(rows) < batch:
                if stream is not None and (last > 0 or after_seq == 0):
                    self._writers.saw(stream, last)  # read to its end: what appends expect
                return

    def projection(self, name: str, key: str) -> object | None:
        """Return the stored state of ``key`` in projection ``name`` (``None`` if absent)."""
        query = sa.select(projections.c.state).where(
            projections.c.name == name, projections.c.key == key
        )
        with self.transaction("read projections from") as connection:
            raw = connection.execute(query).scalar_one_or_none()
        return None if raw is None else json.loads(raw)

    def projection_states(self, name: str) -> dict[str, object]:
        """Return every stored state of projection ``name``, by key."""
        query = sa.select(projections.c.key, projections.c.state).where(projections.c.name == name)
        with self.transaction("read projections from") as connection:
            return {r.key: json.loads(r.state) for r in connection.execute(query)}

    def refresh_projections(self, names: Sequence[str] | None = None) -> dict[str, int]:
        """Bring stored projections up to date with the log, from where each left off.

        Parameters
        ----------
        names
            The projections to refresh; every registered one by default.

        Returns
        -------
        dict[str, int]
            The number of events each projection applied.

        Raises
        ------
        ProjectionError
            If a projector cannot apply an event; nothing of that refresh is stored.
        """
        from tradeleague.store.refresh import refresh

        return refresh(self, names)


_SQLITE_INSERT: Final = (
    "INSERT INTO events (seq, event_id, stream, kind, occurred_at, payload, prev_hash, hash) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
"""The insert of one events row on SQLite, in the order `_insert` lists the values."""


def _insert(connection: sa.Connection, stored: list[StoredEvent]) -> None:
    """Insert the rows of ``stored`` in one executemany.

    On SQLite the rows go to the driver as tuples, each time bound by the
    column type's own processor (the very text SQLAlchemy would store): the
    Core statement spent more per row on building and processing parameter
    dicts than SQLite spent inserting them. Other backends take the statement.
    """
    dialect = connection.dialect
    if dialect.name != "sqlite" or dialect.paramstyle != "qmark":
        connection.execute(sa.insert(events), [_row(s) for s in stored])
        return
    when = events.c.occurred_at.type.dialect_impl(dialect).bind_processor(dialect)
    if when is None:  # pragma: no cover - UtcDateTime always has one on SQLite
        raise RuntimeError("no bind processor for occurred_at")
    # a batch stamps many events with one moment: each moment is bound once
    bound: dict[object, object] = {}
    rows = []
    for s in stored:
        event = s.event
        moment = event.occurred_at
        text = bound.get(moment)
        if text is None:
            text = bound[moment] = when(moment)
        row = (event.id, event.stream, event.kind, text, event.payload_json, s.prev_hash, s.hash)
        rows.append((s.seq, *row))
    connection.exec_driver_sql(_SQLITE_INSERT, rows)


def _row(stored: StoredEvent) -> dict[str, object]:
    event = stored.event
    return {
        "seq": stored.seq,
        "event_id": event.id,
        "stream": event.stream,
        "kind": event.kind,
        "occurred_at": event.occurred_at,
        "payload": event.payload_json,
        "prev_hash": stored.prev_hash,
        "hash": stored.hash,
    }


def _stored(row: sa.Row[tuple[object, ...]]) -> StoredEvent:
    try:
        return row_to_stored(row)
    except (ValueError, TypeError) as error:
        raise StoreError(
            f"The event at seq {row.seq} is malformed ({error}); run `tradeleague verify`."
        ) from None


def open_store(url: str | None = None, *, upgrade: bool = True) -> Store:
    """Open the event store at ``url`` and return it.

    Parameters
    ----------
    url
        A SQLAlchemy URL (``sqlite:///path.db``, ``postgresql+psycopg://...``);
        ``None`` means ``$TRADELEAGUE_DB``, else ``sqlite:///./tradeleague.db``.
    upgrade
        Bring the schema to head first (creating it in a blank database). When
        false, the database must exist and already be at head.

    Raises
    ------
    StoreError
        In one sentence, if the URL is malformed, the backend unsupported, the
        database unreachable, or (``upgrade=False``) missing or out of date.
    """
    resolved = resolve_url(url)
    parsed = parse_url(resolved)
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if not upgrade and is_sqlite and not Path(parsed.database or "").is_file():
        raise StoreError(f"There is no database at {mask_url(parsed)}.")
    engine = make_engine(resolved)
    try:
        with translate_errors("open", parsed):
            if upgrade:
                migrate.upgrade(engine)
            else:
                _require_head(engine, parsed)
    except BaseException:
        engine.dispose()
        raise
    return Store(engine, parsed)


def _require_head(engine: sa.Engine, url: URL) -> None:
    with engine.connect() as connection:
        current = migrate.current_revision(connection)
    if current != migrate.head_revision():
        state = "has no tradeleague schema" if current is None else f"is at revision {current}"
        raise StoreError(
            f"The database {mask_url(url)} {state}, not {migrate.head_revision()}; "
            "run `tradeleague db upgrade`."
        )
