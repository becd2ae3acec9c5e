"""Reading back what this process appended: the kept event, only for a row equal to it (C-4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Side
from tradeleague.store import Store, account_opened, open_store, order_filled, verify
from tradeleague.store import rows as rows_module
from tradeleague.store.rows import _canonical_object, iter_rows, row_to_stored

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)
STREAM = "season-1"


def _append(store: Store, n: int = 3) -> list[object]:
    events = [account_opened(STREAM, "alice", usd(10_000), T0)] + [
        order_filled(
            STREAM, "alice", Fill.at("AAPL", Side.BUY, qty(i + 1), usd("150")), T0 + timedelta(i)
        )
        for i in range(n - 1)
    ]
    return list(store.append(events))


def _rows(store: Store) -> list[sa.Row[tuple[object, ...]]]:
    with store.transaction("read") as connection:
        return list(iter_rows(connection))


def _decoded(row: sa.Row[tuple[object, ...]]) -> object:
    """What the row holds, decoded with nothing kept (the path before the kept one)."""
    kept = dict(rows_module._APPENDED)
    rows_module._APPENDED.clear()
    try:
        return row_to_stored(row)
    finally:
        rows_module._APPENDED.update(kept)


def test_rows_read_back_are_the_appended_events(tmp_path: object) -> None:
    """Each row read back is the very event appended, equal to what decoding the row gives."""
    with open_store(f"sqlite:///{tmp_path}/a.db") as store:
        appended = _append(store)
        rows = _rows(store)
        assert [row_to_stored(r) for r in rows] == appended
        assert all(row_to_stored(r) is s for r, s in zip(rows, appended, strict=True))
        assert [_decoded(r) for r in rows] == appended
        read = list(store.events(STREAM))
        assert all(a is b for a, b in zip(read, appended, strict=True))
        assert verify(store).ok


def test_a_row_changed_behind_the_store_is_decoded_not_taken_from_memory(
    tmp_path: object,
) -> None:
    """A row that differs from the kept event in any column gives what the row holds."""
    with open_store(f"sqlite:///{tmp_path}/a.db") as store:
        appended = _append(store)
        with store.engine.begin() as conn:
            ddl = conn.execute(
                sa.text("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
            ).scalar_one()
            conn.execute(sa.text("DROP TRIGGER events_no_update"))
            conn.execute(
                sa.text("UPDATE events SET payload = :p WHERE seq = 1"),
                {"p": '{"account":"alice","cash":"1"}'},
            )
            conn.execute(sa.text("UPDATE events SET kind = 'AccountClosed' WHERE seq = 2"))
            conn.execute(sa.text(ddl))
        first, second, third = (row_to_stored(r) for r in _rows(store))
        assert first is not appended[0]
        assert first.event.payload_view == {"account": "alice", "cash": "1"}
        assert second is not appended[1]
        assert second.event.kind == "AccountClosed"
        assert third is appended[2]
        assert not verify(store).ok


def test_another_database_at_the_same_seq_is_decoded(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two logs in one process: a row of the other log at a kept seq is its own event."""
    with open_store(f"sqlite:///{tmp_path}/a.db") as a:
        first = _append(a)
    with open_store(f"sqlite:///{tmp_path}/b.db") as b:
        with b.transaction("append", write=True) as connection:
            other = b.append_in(
                connection, [account_opened("season-2", "bob", usd(5), T0 + timedelta(days=9))]
            )
        monkeypatch.setitem(rows_module._APPENDED, 1, first[0])  # as if a.db appended last
        (row,) = _rows(b)
        assert row_to_stored(row) == other[0]
        assert row_to_stored(row) != first[0]
        assert row_to_stored(row) is not first[0]
        assert _canonical_object(row._mapping["payload"]) is not None


def test_only_the_last_appended_are_kept(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory is bounded: past its size the oldest appended events are forgotten."""
    monkeypatch.setattr(rows_module, "APPENDED_KEPT", 2)
    monkeypatch.setattr(rows_module, "_APPENDED", {})
    with open_store(f"sqlite:///{tmp_path}/a.db") as store:
        appended = _append(store, 5)
        assert sorted(rows_module._APPENDED) == [4, 5]
        rows = _rows(store)
        assert [row_to_stored(r) for r in rows] == appended
        assert row_to_stored(rows[0]) is not appended[0]
        assert row_to_stored(rows[4]) is appended[4]
