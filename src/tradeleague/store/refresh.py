"""Bringing stored projections up to date, incrementally (DESIGN principle 4).

Each projection keeps a cursor (the last seq it has read). A refresh locks the
cursor row, folds the events after it through the pure projector, and writes
the changed states and the new cursor in the same transaction, so two
refreshes never apply an event twice.

A projector may name the only kinds it folds (a ``kinds`` attribute, a
frozenset of kind names: its ``key`` is ``None`` for every other kind); its
refresh then reads only those rows, up to the chain head read first, and
moves its cursor to that head. ``verify`` still folds every row through
``key``, so a projector that folds a kind it did not name is found there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import islice
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from tradeleague.collect import fewer_collections
from tradeleague.events import Event, canonical_json
from tradeleague.store.projection import (
    ProjectionError,
    Projector,
    get_projector,
    registered_projectors,
)
from tradeleague.store.rows import BATCH, iter_rows, row_to_stored
from tradeleague.store.schema import chain_head, projection_cursors, projections

if TYPE_CHECKING:
    from tradeleague.store.event_store import Store

__all__ = ["refresh", "upsert"]

_MAX_KEY = 300


def upsert(
    connection: sa.Connection, table: sa.Table, rows: list[dict[str, object]], keys: list[str]
) -> None:
    """Insert ``rows`` into ``table``, replacing the non-key columns where ``keys`` collide."""
    if not rows:
        return
    dialect = connection.dialect.name
    stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
    update = {c.name: stmt.excluded[c.name] for c in table.columns if c.name not in keys}
    connection.execute(stmt.on_conflict_do_update(index_elements=keys, set_=update), rows)


def _lock_cursor(connection: sa.Connection, name: str) -> int:
    dialect = connection.dialect.name
    stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(projection_cursors)
    connection.execute(
        stmt.on_conflict_do_nothing(index_elements=["name"]), {"name": name, "last_seq": 0}
    )
    query = (
        sa.select(projection_cursors.c.last_seq)
        .where(projection_cursors.c.name == name)
        .with_for_update()
    )
    return int(connection.execute(query).scalar_one())


_KEYS_PER_QUERY = 500
"""Keys whose stored states one query reads (well under SQLite's bound-parameter limit)."""


def _load_many(connection: sa.Connection, name: str, keys: list[str]) -> dict[str, str]:
    """Return the stored state texts of ``keys`` in projection ``name`` (absent keys left out)."""
    found: dict[str, str] = {}
    for i in range(0, len(keys), _KEYS_PER_QUERY):
        chunk = keys[i : i + _KEYS_PER_QUERY]
        query = sa.select(projections.c.key, projections.c.state).where(
            projections.c.name == name, projections.c.key.in_(chunk)
        )
        found.update({str(r.key): str(r.state) for r in connection.execute(query)})
    return found


def _keyed(
    rows: list[sa.Row[tuple[object, ...]]], projector: Projector
) -> tuple[list[tuple[int, Event, str | None]], tuple[int, Exception] | None]:
    """Return each row's (seq, event, key) up to the first that fails, and that failure."""
    out: list[tuple[int, Event, str | None]] = []
    for row in rows:
        seq = int(row.seq)
        try:
            event = row_to_stored(row).event
            key = projector.key(event)
            if key is not None and len(key) > _MAX_KEY:
                raise ValueError(f"key {key[:40]!r}... is longer than {_MAX_KEY} characters")
        except (ValueError, TypeError, KeyError) as error:
            return out, (seq, error)
        out.append((seq, event, key))
    return out, None


def _refresh_one(connection: sa.Connection, name: str, projector: Projector) -> int:
    cursor = _lock_cursor(connection, name)
    states: dict[str, object] = {}
    changed: dict[str, int] = {}
    last = cursor
    applied = 0
    kinds = _kinds(projector)
    head: int | None = None
    if kinds is not None:  # the head first: every row up to it is committed and read
        head = int(connection.execute(sa.select(chain_head.c.seq)).scalar_one())
    source = iter_rows(connection, after_seq=cursor, until_seq=head, kinds=kinds)
    while batch := list(islice(source, BATCH)):
        # the keys of a batch first, so the states they need are read in one query
        keyed, failed = _keyed(batch, projector)
        new = list(dict.fromkeys(k for _, _, k in keyed if k is not None and k not in states))
        stored = _load_many(connection, name, new) if new else {}
        for seq, event, key in keyed:
            last = seq
            if key is None:
                continue
            try:
                if key not in states:
                    raw = stored.get(key)
                    states[key] = projector.initial() if raw is None else json.loads(raw)
                states[key] = projector.apply(states[key], event)
            except (ValueError, TypeError, KeyError) as error:
                raise ProjectionError(
                    f"Projection {name!r} cannot apply the event at seq {last}: {error}."
                ) from error
            changed[key] = last
            applied += 1
        if failed is not None:
            raise ProjectionError(
                f"Projection {name!r} cannot apply the event at seq {failed[0]}: {failed[1]}."
            ) from failed[1]
    # Each changed state is serialised once per refresh, not after every event: a
    # season's state grows with its roster, so a per-event check made replays
    # quadratic in the number of agents.
    rows: list[dict[str, object]] = []
    for k, s in changed.items():
        try:
            text = canonical_json(states[k])
        except (ValueError, TypeError) as error:
            raise ProjectionError(
                f"Projection {name!r} cannot store its state after the event at seq {s}: {error}."
            ) from error
        rows.append({"name": name, "key": k, "state": text, "last_seq": s})
    upsert(connection, projections, rows, ["name", "key"])
    if head is not None:
        last = max(last, head)
    if last != cursor:
        connection.execute(
            sa.update(projection_cursors)
            .where(projection_cursors.c.name == name)
            .values(last_seq=last)
        )
    return applied


def _kinds(projector: Projector) -> frozenset[str] | None:
    """Return the kinds ``projector`` says it folds, or ``None`` (it reads every row)."""
    kinds = getattr(projector, "kinds", None)
    if kinds is None:
        return None
    if not isinstance(kinds, frozenset) or not all(isinstance(k, str) for k in kinds):
        raise ProjectionError(f"a projector's kinds must be a frozenset of kind names: {kinds!r}")
    return kinds


def refresh(store: Store, names: Sequence[str] | None = None) -> dict[str, int]:
    """Refresh the named projections, every registered one by default.

    See `Store.refresh_projections`.
    """
    chosen = registered_projectors() if names is None else {n: get_projector(n) for n in names}
    applied: dict[str, int] = {}
    with fewer_collections():  # a refresh after a replay folds as many events as it wrote
        for name, projector in sorted(chosen.items()):
            with store.transaction("refresh projections in", write=True) as connection:
                applied[name] = _refresh_one(connection, name, projector)
    return applied
