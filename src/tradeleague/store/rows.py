"""Reading the ``events`` table in seq order, in batches, and turning rows into events."""

from __future__ import annotations

import json
from collections.abc import Iterator

import sqlalchemy as sa

from tradeleague.events import Event
from tradeleague.store.chain import StoredEvent
from tradeleague.store.schema import events

__all__ = ["BATCH", "iter_rows", "read_batch", "row_to_stored", "strict_loads"]

BATCH = 1000
"""Rows read per query."""


def read_batch(
    connection: sa.Connection,
    *,
    stream: str | None = None,
    after_seq: int = 0,
    until_seq: int | None = None,
    limit: int = BATCH,
) -> list[sa.Row[tuple[object, ...]]]:
    """Return up to ``limit`` raw ``events`` rows with ``after_seq < seq <= until_seq``.

    Parameters
    ----------
    stream
        Only this stream's rows, if given.
    until_seq
        No upper bound when ``None``.
    """
    query = sa.select(events).where(events.c.seq > after_seq).order_by(events.c.seq).limit(limit)
    if stream is not None:
        query = query.where(events.c.stream == stream)
    if until_seq is not None:
        query = query.where(events.c.seq <= until_seq)
    return list(connection.execute(query).all())


def iter_rows(
    connection: sa.Connection,
    *,
    stream: str | None = None,
    after_seq: int = 0,
    until_seq: int | None = None,
    batch: int = BATCH,
) -> Iterator[sa.Row[tuple[object, ...]]]:
    """Yield every raw row `read_batch` would, batch after batch (keyset pagination)."""
    last = after_seq
    while True:
        rows = read_batch(
            connection, stream=stream, after_seq=last, until_seq=until_seq, limit=batch
        )
        yield from rows
        if len(rows) < batch:
            return
        last = int(rows[-1].seq)


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def strict_loads(text: str) -> object:
    """Decode stored JSON, refusing an object that names a key twice.

    Raises
    ------
    ValueError
        If ``text`` is not JSON or repeats a key (the log's payloads never do:
        a repeated key was added around the store).
    """
    return json.loads(text, object_pairs_hook=_no_duplicates)


def row_to_stored(row: sa.Row[tuple[object, ...]]) -> StoredEvent:
    """Return the `StoredEvent` a row holds.

    Raises
    ------
    ValueError, TypeError
        If the row does not hold a well-formed event (it was written around the
        store, e.g. with the triggers disabled).
    """
    m = row._mapping
    payload = strict_loads(m["payload"])
    if not isinstance(payload, dict):
        raise TypeError("the payload is not a JSON object")
    event = Event(m["stream"], m["kind"], payload, m["occurred_at"], id=m["event_id"])
    return StoredEvent(int(m["seq"]), event, str(m["prev_hash"]), str(m["hash"]))
