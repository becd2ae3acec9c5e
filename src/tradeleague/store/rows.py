"""Reading the ``events`` table in seq order, in batches, and turning rows into events."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Final

import sqlalchemy as sa

from tradeleague.events import Event
from tradeleague.store.chain import StoredEvent
from tradeleague.store.schema import events

__all__ = ["BATCH", "iter_rows", "read_batch", "remember_appended", "row_to_stored", "strict_loads"]

BATCH = 1000
"""Rows read per query."""


def read_batch(
    connection: sa.Connection,
    *,
    stream: str | None = None,
    after_seq: int = 0,
    until_seq: int | None = None,
    limit: int = BATCH,
    kinds: frozenset[str] | None = None,
) -> list[sa.Row[tuple[object, ...]]]:
    """Return up to ``limit`` raw ``events`` rows with ``after_seq < seq <= until_seq``.

    Parameters
    ----------
    stream
        Only this stream's rows, if given.
    until_seq
        No upper bound when ``None``.
    kinds
        Only rows of these kinds, if given.
    """
    query = sa.select(events).where(events.c.seq > after_seq).order_by(events.c.seq).limit(limit)
    if stream is not None:
        query = query.where(events.c.stream == stream)
    if kinds is not None:
        query = query.where(events.c.kind.in_(sorted(kinds)))
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
    kinds: frozenset[str] | None = None,
) -> Iterator[sa.Row[tuple[object, ...]]]:
    """Yield every raw row `read_batch` would, batch after batch (keyset pagination)."""
    last = after_seq
    while True:
        rows = read_batch(
            connection,
            stream=stream,
            after_seq=last,
            until_seq=until_seq,
            limit=batch,
            kinds=kinds,
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


_APPENDED: dict[int, StoredEvent] = {}
"""The events this process appended last, by seq (`remember_appended`)."""

_APPENDED_LOCK: Final = threading.Lock()

APPENDED_KEPT: Final = 100_000
"""How many appended events `row_to_stored` can hand back without decoding their row."""


def remember_appended(stored: Iterable[StoredEvent]) -> None:
    """Keep events just appended, so reading their rows back costs no decode.

    A replay refreshes its projections and verifies its chain right after
    appending; each read of a row equal in every column to an event kept here
    returns that event (`row_to_stored`). Only the last `APPENDED_KEPT` are
    kept. A kept event whose transaction rolled back, or that another
    database holds at the same seq, is never handed back for a row that
    differs from it.
    """
    kept = _APPENDED
    with _APPENDED_LOCK:  # appenders in several threads (a served site) trim it one at a time
        for s in stored:
            kept[s.seq] = s
        excess = len(kept) - APPENDED_KEPT
        if excess > 0:
            for seq in list(islice(kept, excess)):
                kept.pop(seq, None)


def _appended(m: sa.RowMapping) -> StoredEvent | None:
    """Return the kept event that ``m`` holds column for column, if one is kept."""
    known = _APPENDED.get(m["seq"])
    if known is None:
        return None
    e = known.event
    if (
        known.hash == m["hash"]
        and e.payload_json == m["payload"]
        and e.id == m["event_id"]
        and known.prev_hash == m["prev_hash"]
        and e.kind == m["kind"]
        and e.stream == m["stream"]
        and e.occurred_at == m["occurred_at"]
    ):
        return known
    return None


def row_to_stored(row: sa.Row[tuple[object, ...]]) -> StoredEvent:
    """Return the `StoredEvent` a row holds.

    A row equal in every column to an event this process just appended
    (`remember_appended`) gives that event back, already known well formed.

    Raises
    ------
    ValueError, TypeError
        If the row does not hold a well-formed event (it was written around the
        store, e.g. with the triggers disabled).
    """
    m = row._mapping
    known = _appended(m)
    if known is not None:
        return known
    text = m["payload"]
    parsed = _canonical_object(text)
    if parsed is not None:  # the common case: the text is what the writer stored
        event = Event._canonical(
            m["stream"], str(m["kind"]), text, m["occurred_at"], m["event_id"], parsed
        )
    else:  # anything else takes the checks of a new event (and their errors)
        payload = strict_loads(text)
        if not isinstance(payload, dict):
            raise TypeError("the payload is not a JSON object")
        event = Event(m["stream"], m["kind"], payload, m["occurred_at"], id=m["event_id"])
    return StoredEvent(int(m["seq"]), event, str(m["prev_hash"]), str(m["hash"]))


class _NotPlain(Exception):
    """A float or a NaN/Infinity constant in stored text (refused by canonical JSON)."""


def _refuse(_text: str) -> object:
    raise _NotPlain


def _canonical_object(text: object) -> dict[str, object] | None:
    """Return the object ``text`` decodes to if ``text`` is its canonical JSON, else ``None``.

    Decoding with C-level parsing and writing back once costs far less than a
    Python hook per object plus `canonical_json`'s walk, and proves as much:
    equal text means no key was repeated (a repeat would be dropped on the
    way back), no float (refused while parsing), and only Unicode that encodes
    as UTF-8 (``canonical_json`` writes every string unescaped, so a lone
    surrogate would be in ``text`` itself, which the encode check refuses).
    """
    if type(text) is not str:
        return None
    try:
        value = _loads(text)
        if type(value) is not dict or _dumps(value) != text:
            return None
        if not text.isascii():
            text.encode("utf-8")
    except (_NotPlain, ValueError, UnicodeEncodeError, RecursionError):
        return None
    return value


# made once: json.loads with hooks builds a decoder on every call
_loads = json.JSONDecoder(parse_float=_refuse, parse_constant=_refuse).decode
_dumps = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode
