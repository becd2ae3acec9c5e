"""The schema: migrations from a blank database, and append-only triggers (SPEC C-4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import exc

from tradeleague.errors import StoreError
from tradeleague.events import Event
from tradeleague.store import describe, open_store
from tradeleague.store.migrate import current_revision, head_revision

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)


def test_migrations_take_a_blank_database_to_head(db_url: str) -> None:
    """C-4: a blank database gets every table, the genesis head and the triggers."""
    blank = describe(db_url) if not db_url.startswith("sqlite") else None
    assert blank is None or blank.revision is None
    with open_store(db_url) as store:
        with store.engine.connect() as conn:
            assert current_revision(conn) == head_revision()
            tables = set(sa.inspect(conn).get_table_names())
        assert {"events", "chain_head", "projections", "projection_cursors"} <= tables
        assert store.head().seq == 0
    info = describe(db_url)
    assert (info.revision, info.events, info.head_seq) == (head_revision(), 0, 0)
    assert info.up_to_date
    with open_store(db_url) as again:
        assert again.count() == 0


def test_opening_without_upgrade_needs_a_current_schema(db_url: str) -> None:
    """A read-only open refuses a blank database with a sentence naming the fix."""
    if db_url.startswith("sqlite"):
        with pytest.raises(StoreError, match="no database"):
            open_store(db_url, upgrade=False)
    else:
        with pytest.raises(StoreError, match="db upgrade"):
            open_store(db_url, upgrade=False)
    open_store(db_url).close()
    with open_store(db_url, upgrade=False) as store:
        assert store.count() == 0


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET kind = 'Forged'",
        "UPDATE events SET payload = '{}' WHERE seq = 1",
        "DELETE FROM events",
        "DELETE FROM events WHERE seq = 1",
    ],
)
def test_the_database_rejects_changes_to_events(db_url: str, statement: str) -> None:
    """C-4: the database itself refuses to change or delete a recorded event."""
    with open_store(db_url) as store:
        store.append([Event("s", "PriceRead", {"symbol": "AAPL", "price": "1"}, T0)])
        with pytest.raises(exc.DBAPIError, match="append-only"), store.engine.begin() as conn:
            conn.execute(sa.text(statement))
        assert store.count() == 1
        assert [e.event.kind for e in store.events()] == ["PriceRead"]


def test_postgresql_rejects_truncate(pg_url: str) -> None:
    """C-4: TRUNCATE, which skips row triggers, is refused by a statement trigger."""
    with open_store(pg_url) as store:
        store.append([Event("s", "PriceRead", {}, T0)])
        with pytest.raises(exc.DBAPIError, match="append-only"), store.engine.begin() as conn:
            conn.execute(sa.text("TRUNCATE events"))
        assert store.count() == 1
