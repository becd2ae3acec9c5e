"""Verification: walk the whole chain and rebuild every projection from events alone.

`verify` is what makes the log auditable (SPEC C-4, C-5; DESIGN principle 4).
In one consistent read it checks, for every stored event: that sequence
numbers run 1, 2, 3... without gaps; that each ``prev_hash`` is the previous
event's hash; that each hash is the recomputed `chain_hash`; that the payload
text is stored in its canonical form with no key repeated (the hash covers
the parsed payload, so the bytes must be the one text it parses from); and
that the chain head row names the last event. Every scenario run is replayed
from its events on its scenario's bars, and the scenario tables are compared
with that replay, column by column (`tradeleague.store.records`). It then folds
every registered projector over the events its stored state claims to have
read and compares the result, key by key, with the stored state. Every
disagreement is reported with its seq or key; nothing is repaired.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import sqlalchemy as sa

from tradeleague.events import Event, EventKind, canonical_json
from tradeleague.market.mask import draw_mask, mask_from_payload
from tradeleague.store.chain import GENESIS_HASH, chain_hash
from tradeleague.store.event_store import Store
from tradeleague.store.projection import Projector, registered_projectors
from tradeleague.store.records import ScenarioRecords
from tradeleague.store.rows import iter_rows, row_to_stored
from tradeleague.store.schema import chain_head, events, projection_cursors, projections

__all__ = ["Mismatch", "ProjectionCheck", "VerifyReport", "verify", "verify_since"]

_SHOW = 160


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One disagreement found by `verify`.

    Attributes
    ----------
    check
        What failed: ``sequence``, ``link``, ``hash``, ``malformed``,
        ``chain_head``, ``checkpoint``, ``unsigned_tail``, ``payload_form``, ``projection_error``,
        ``projection_state``, ``projection_missing``, ``projection_extra``,
        ``projection_seq``, ``projection_cursor``, ``mask`` (a masked season's
        table is not the one its seed draws), or one of the scenario tables'
        checks (``scenario_start``, ``scenario_status``, ``scenario_state``,
        ``scenario_replay``, ``scenario_results``, ``scenario_published``,
        ``scenario_missing``, ``scenario_equity``, ``scenario_version``,
        ``scenario_bars``; ``projection`` is then the table).
    detail
        One sentence saying what differs.
    seq
        The event's sequence number, where one is concerned.
    projection, key
        The projection and key, where one is concerned; for a scenario
        table's check, the table and the row's key (a run or scenario id).
    column
        The scenario table's column the events contradict (``*``: the row
        as a whole), where one is concerned.
    """

    check: str
    detail: str
    seq: int | None = None
    projection: str | None = None
    key: str | None = None
    column: str | None = None


@dataclass(frozen=True, slots=True)
class ProjectionCheck:
    """What `verify` compared for one registered projection.

    Attributes
    ----------
    name
        The projection.
    keys
        Keys compared (rebuilt or stored).
    cursor
        The last seq its stored state has read.
    behind
        Events after the cursor, not yet applied (not a mismatch: run a refresh).
    """

    name: str
    keys: int
    cursor: int
    behind: int


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Everything `verify` checked, and every mismatch it found."""

    url: str
    events: int
    streams: int
    head_seq: int
    head_hash: str
    projections: tuple[ProjectionCheck, ...]
    unchecked_projections: tuple[str, ...]
    mismatches: tuple[Mismatch, ...] = field(default_factory=tuple)
    since: int | None = None
    """The checkpoint's seq the walk began after (`verify_since`), or None for the whole log."""

    @property
    def ok(self) -> bool:
        """Return whether the chain and every checked projection agree."""
        return not self.mismatches

    def to_dict(self) -> dict[str, object]:
        """Return the report as a JSON-safe dict (with ``ok``)."""
        out = asdict(self)
        out["ok"] = self.ok
        return out


def _clip(text: str) -> str:
    return text if len(text) <= _SHOW else text[: _SHOW - 3] + "..."


class _Rebuild:
    """The in-memory fold of one projector, up to its stored cursor."""

    def __init__(self, name: str, projector: Projector, cursor: int) -> None:
        self.name = name
        self.projector = projector
        self.cursor = cursor
        self.states: dict[str, object] = {}
        self.last_seq: dict[str, int] = {}
        self.broken: set[str] = set()
        self.tail: _Rebuild | None = None

    def beyond_cursor(self) -> _Rebuild:
        """Return the fold that goes on past the cursor (made once, from a copy of the state).

        Events after a projection's cursor are not compared with stored state
        (they are not applied yet), but each must still apply: a log that no
        projector can fold (an account opened twice...) is a mismatch even while
        every stored projection is behind it.
        """
        if self.tail is None:
            tail = _Rebuild(self.name, self.projector, self.cursor)
            # stored states are JSON, and a refresh goes on from JSON, so a JSON copy is exact
            tail.states = json.loads(canonical_json(self.states))
            tail.last_seq = dict(self.last_seq)
            tail.broken = set(self.broken)
            self.tail = tail
        return self.tail


def _fold(rebuild: _Rebuild, seq: int, event: Event, out: list[Mismatch]) -> None:
    key: str | None = None
    try:
        key = rebuild.projector.key(event)
        if key is None or key in rebuild.broken:
            return
        state = rebuild.states.get(key, rebuild.projector.initial())
        rebuild.states[key] = rebuild.projector.apply(state, event)
        rebuild.last_seq[key] = seq
    except (ValueError, TypeError, KeyError) as error:
        if key is not None:
            rebuild.broken.add(key)
        out.append(Mismatch("projection_error", f"cannot apply: {error}", seq, rebuild.name, key))


def _check_mask(seq: int, event: Event, out: list[Mismatch]) -> None:
    """Report a recorded mask table that is not the one its seed draws (chosen by hand)."""
    try:
        table = mask_from_payload(event.payload_view)
    except (ValueError, TypeError, KeyError) as error:
        out.append(Mismatch("mask", f"the mask table cannot be read: {error}", seq))
        return
    drawn = draw_mask(table.seed, list(table.names), table.start)
    if drawn != table:
        out.append(Mismatch("mask", "the mask table is not the one its seed draws", seq))


def _walk(
    connection: sa.Connection,
    rebuilds: list[_Rebuild],
    records: ScenarioRecords | None,
    out: list[Mismatch],
    start: tuple[int, str] = (0, GENESIS_HASH),
) -> tuple[int, int, int, str]:
    count, expected, prev, streams = 0, start[0] + 1, start[1], set()
    last_seq = start[0]
    for row in iter_rows(connection, after_seq=start[0]):
        seq, count = int(row.seq), count + 1
        if seq != expected:
            out.append(Mismatch("sequence", f"expected seq {expected}, found {seq}", seq))
        if row.prev_hash != prev:
            out.append(Mismatch("link", "prev_hash is not the previous event's hash", seq))
        try:
            stored = row_to_stored(row)
        except (ValueError, TypeError) as error:
            out.append(Mismatch("malformed", f"the row is not a well-formed event: {error}", seq))
        else:
            if chain_hash(str(row.prev_hash), seq, stored.event) != row.hash:
                out.append(Mismatch("hash", "stored hash differs from the recomputed one", seq))
            if row.payload != stored.event.payload_json:
                # the hash covers the parsed payload; the bytes kept must be its canonical form
                detail = "the stored payload text is not its canonical form"
                out.append(Mismatch("payload_form", detail, seq))
            streams.add(stored.event.stream)
            if records is not None:
                records.see(seq, stored.event)
            if stored.event.kind == EventKind.MASK_DRAWN:
                _check_mask(seq, stored.event, out)
            for rebuild in rebuilds:
                if seq <= rebuild.cursor:
                    _fold(rebuild, seq, stored.event, out)
                else:
                    _fold(rebuild.beyond_cursor(), seq, stored.event, out)
        prev, expected, last_seq = str(row.hash), seq + 1, seq
    return count, len(streams), last_seq, prev


def _compare(
    connection: sa.Connection, rebuild: _Rebuild, head_seq: int, out: list[Mismatch]
) -> ProjectionCheck:
    name = rebuild.name
    query = sa.select(projections.c.key, projections.c.state, projections.c.last_seq).where(
        projections.c.name == name
    )
    stored = {r.key: (str(r.state), int(r.last_seq)) for r in connection.execute(query)}
    if rebuild.cursor > head_seq:
        out.append(
            Mismatch(
                "projection_cursor",
                f"cursor {rebuild.cursor} is past the head {head_seq}",
                projection=name,
            )
        )
    keys = sorted(set(stored) | set(rebuild.states))
    for key in keys:
        if key in rebuild.broken:
            continue
        if key not in stored:
            out.append(
                Mismatch(
                    "projection_missing",
                    "rebuilt from events but not stored",
                    rebuild.last_seq[key],
                    name,
                    key,
                )
            )
            continue
        state_text, last_seq = stored[key]
        if key not in rebuild.states:
            out.append(
                Mismatch("projection_extra", "stored but no event produces it", last_seq, name, key)
            )
            continue
        rebuilt = canonical_json(rebuild.states[key])
        try:
            kept = canonical_json(json.loads(state_text))
        except (ValueError, TypeError):
            kept = state_text
        if kept != rebuilt:
            out.append(
                Mismatch(
                    "projection_state",
                    f"stored {_clip(kept)} but events give {_clip(rebuilt)}",
                    rebuild.last_seq[key],
                    name,
                    key,
                )
            )
        elif last_seq != rebuild.last_seq[key]:
            out.append(
                Mismatch(
                    "projection_seq",
                    f"stored last seq {last_seq}, events give {rebuild.last_seq[key]}",
                    last_seq,
                    name,
                    key,
                )
            )
    return ProjectionCheck(name, len(keys), rebuild.cursor, max(head_seq - rebuild.cursor, 0))


@contextmanager
def _snapshot(store: Store) -> Iterator[sa.Connection]:
    """One read transaction over the log (``REPEATABLE READ`` on PostgreSQL): one snapshot."""
    with store.transaction("verify") as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield connection


def verify(
    store: Store, *, checkpoint: tuple[int, str] | None = None, to_head: bool = False
) -> VerifyReport:
    """Walk the whole chain and rebuild every registered projection; report what differs.

    The read is one transaction (``REPEATABLE READ`` on PostgreSQL), so
    appends running meanwhile cannot make a consistent log look broken.

    Parameters
    ----------
    store
        The store to check.
    checkpoint
        A ``(seq, hash)`` published earlier, outside this database (``db info``
        prints the head). The chain alone cannot reveal events cut from its end
        together with a rewritten head row; a checkpoint can: the log must still
        hold event ``seq`` with exactly that hash.
    to_head
        The checkpoint is the last head published: every event after it is
        reported (``unsigned_tail``), so an append forged with a recomputed
        hash cannot pass unnoticed.

    Raises
    ------
    StoreError
        If the database cannot be read (a mismatch is never an exception).
    """
    out: list[Mismatch] = []
    with _snapshot(store) as connection:
        cursors = {
            str(r.name): int(r.last_seq) for r in connection.execute(sa.select(projection_cursors))
        }
        registry = registered_projectors()
        rebuilds = [_Rebuild(n, p, cursors.get(n, 0)) for n, p in sorted(registry.items())]
        records = ScenarioRecords(connection)
        count, streams, last_seq, last_hash = _walk(connection, rebuilds, records, out)
        _check_head(connection, last_seq, last_hash, out)
        if checkpoint is not None:
            _check_checkpoint(connection, checkpoint, out)
            if to_head and last_seq > checkpoint[0]:
                detail = (
                    f"{last_seq - checkpoint[0]} event(s) after seq {checkpoint[0]}, the last "
                    "published head, were appended without a published head"
                )
                out.append(Mismatch("unsigned_tail", detail, checkpoint[0] + 1))
        checks = tuple(_compare(connection, r, last_seq, out) for r in rebuilds)
        for found in records.compare(connection):
            column = "" if found.column == "*" else f", column {found.column}"
            detail = f"{found.table} row {found.key}{column}: {found.detail}"
            out.append(
                Mismatch(found.check, detail, found.seq, found.table, found.key, found.column)
            )
        stored_names = connection.execute(sa.select(projections.c.name).distinct()).scalars()
        unchecked = tuple(sorted(set(map(str, stored_names)) - set(registry)))
    return VerifyReport(
        url=store.url,
        events=count,
        streams=streams,
        head_seq=last_seq,
        head_hash=last_hash,
        projections=checks,
        unchecked_projections=unchecked,
        mismatches=tuple(out),
    )


def verify_since(store: Store, checkpoint: tuple[int, str]) -> VerifyReport:
    """Check the chain from a checkpoint onward, reading no event at or before it.

    A daily audit need not re-read years: given a head published earlier
    (``checkpoint``, its signature checked by the caller), only the events
    after its seq are read; each hash is recomputed, the first must link to
    the checkpoint's hash, the stored event at the checkpoint's seq must still
    carry that hash (one index read), and the head row must be where the walk
    ends. Projections and the scenario tables fold every event from the first,
    so they are left to a whole `verify`; the report lists none.

    Raises
    ------
    StoreError
        If the database cannot be read (a mismatch is never an exception).
    """
    out: list[Mismatch] = []
    with _snapshot(store) as connection:
        if checkpoint[0] > 0:
            _check_checkpoint(connection, checkpoint, out)
        elif checkpoint[1] != GENESIS_HASH:
            out.append(
                Mismatch("checkpoint", "a checkpoint at seq 0 must name the genesis hash", 0)
            )
        count, streams, last_seq, last_hash = _walk(connection, [], None, out, checkpoint)
        _check_head(connection, last_seq, last_hash, out)
    return VerifyReport(
        url=store.url,
        events=count,
        streams=streams,
        head_seq=last_seq,
        head_hash=last_hash,
        projections=(),
        unchecked_projections=(),
        mismatches=tuple(out),
        since=checkpoint[0],
    )


def _check_head(
    connection: sa.Connection, last_seq: int, last_hash: str, out: list[Mismatch]
) -> None:
    head = connection.execute(sa.select(chain_head).where(chain_head.c.id == 1)).one()
    if (int(head.seq), str(head.hash)) != (last_seq, last_hash):
        out.append(
            Mismatch(
                "chain_head",
                f"the head row says seq {head.seq}, the log ends at seq {last_seq} "
                "(or their hashes differ)",
                int(head.seq),
            )
        )


def _check_checkpoint(
    connection: sa.Connection, checkpoint: tuple[int, str], out: list[Mismatch]
) -> None:
    seq, expected = checkpoint
    found = connection.execute(sa.select(events.c.hash).where(events.c.seq == seq)).scalar()
    if found is None:
        detail = f"the published checkpoint names seq {seq}, which the log no longer holds"
        out.append(Mismatch("checkpoint", detail, seq))
    elif str(found) != expected:
        detail = f"event {seq} has hash {found}, the published checkpoint says {expected}"
        out.append(Mismatch("checkpoint", detail, seq))
