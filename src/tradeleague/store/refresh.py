"""Bringing stored projections up to date, incrementally (DESIGN principle 4).

Each projection keeps a cursor (the last seq it has read). A refresh locks the
cursor row, folds the events after it through the pure projector, and writes
the changed states and the new cursor in the same transaction, so two
refreshes never apply an event twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from tradeleague.events import canonical_json
from tradeleague.store.projection import (
    ProjectionError,
    Projector,
    get_projector,
    registered_projectors,
)
from tradeleague.store.rows import iter_rows, row_to_stored
from tradeleague.store.schema import projection_cursors, projections

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


def _load(connection: sa.Connection, name: str, key: str, projector: Projector) -> object:
    query = sa.select(projections.c.state).where(
        projections.c.name == name, projections.c.key == key
    )
    raw = connection.execute(query).scalar_one_or_none()
    return projector.initial() if raw is None else json.loads(raw)


def _refresh_one(connection: sa.Connection, name: str, projector: Projector) -> int:
    cursor = _lock_cursor(connection, name)
    states: dict[str, object] = {}
    changed: dict[str, int] = {}
    last = cursor
    applied = 0
    for row in iter_rows(connection, after_seq=cursor):
        last = int(row.seq)
        try:
            event = row_to_stored(row).event
            key = projector.key(event)
            if key is None:
                continue
            if len(key) > _MAX_KEY:
                raise ValueError(f"key {key[:40]!r}... is longer than {_MAX_KEY} characters")
            if key not in states:
                states[key] = _load(connection, name, key, projector)
            states[key] = projector.apply(states[key], event)
        except (ValueError, TypeError, KeyError) as error:
            raise ProjectionError(
                f"Projection {name!r} cannot apply the event at seq {last}: {error}."
            ) from error
        changed[key] = last
        applied += 1
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
    if last != cursor:
        connection.execute(
            sa.update(projection_cursors)
            .where(projection_cursors.c.name == name)
            .values(last_seq=last)
        )
    return applied


def refresh(store: Store, names: Sequence[str] | None = None) -> dict[str, int]:
    """Refresh the named projections, every registered one by default.

    See `Store.refresh_projections`.
    """
    chosen = registered_projectors() if names is None else {n: get_projector(n) for n in names}
    applied: dict[str, int] = {}
    for name, projector in sorted(chosen.items()):
        with store.transaction("refresh projections in", write=True) as connection:
            applied[name] = _refresh_one(connection, name, projector)
    return applied
