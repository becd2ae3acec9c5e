"""Append events to the hash-chained log inside a transaction the caller already holds.

A step changes the run row and appends its fills in *one* transaction, so the
mutable state and the auditable log can never disagree. `Store.append` opens
its own transaction; this does the same work (lock the chain head, link each
event, insert, move the head) on the caller's connection.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from tradeleague.events import Event
from tradeleague.store.chain import chain_hash
from tradeleague.store.schema import chain_head, events

__all__ = ["append_on"]


def append_on(connection: sa.Connection, batch: Sequence[Event]) -> int:
    """Append ``batch`` in order on ``connection``'s open transaction; return the last seq."""
    head = connection.execute(
        sa.select(chain_head.c.seq, chain_head.c.hash).where(chain_head.c.id == 1).with_for_update()
    ).one()
    seq, prev = int(head.seq), str(head.hash)
    if not batch:
        return seq
    rows: list[dict[str, object]] = []
    for event in batch:
        seq += 1
        digest = chain_hash(prev, seq, event)
        rows.append(
            {
                "seq": seq,
                "event_id": event.id,
                "stream": event.stream,
                "kind": event.kind,
                "occurred_at": event.occurred_at,
                "payload": event.payload_json,
                "prev_hash": prev,
                "hash": digest,
            }
        )
        prev = digest
    connection.execute(sa.insert(events), rows)
    connection.execute(sa.update(chain_head).where(chain_head.c.id == 1).values(seq=seq, hash=prev))
    return seq
