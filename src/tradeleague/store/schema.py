"""The tables the store reads and writes (SQLAlchemy Core).

The migrations in ``migrations/versions`` create them; this module only
describes them for queries. ``events`` is append-only in the database itself
(triggers reject UPDATE, DELETE and, on PostgreSQL, TRUNCATE: SPEC C-4).
``chain_head`` is a single row holding the last sequence number and hash;
appenders lock it to serialise. ``projections`` holds derived state per
(projection, key) as canonical JSON and ``projection_cursors`` how far each
projection has read the log.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Dialect

__all__ = ["UtcDateTime", "chain_head", "events", "metadata", "projection_cursors", "projections"]


class UtcDateTime(sa.types.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite stores it naive, in UTC)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert to UTC; SQLite gets the naive UTC wall time."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: every stored time must carry UTC (C-11)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Return the stored time as an aware UTC datetime."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


metadata = sa.MetaData()

events = sa.Table(
    "events",
    metadata,
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("event_id", sa.String(26), nullable=False, unique=True),
    sa.Column("stream", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(100), nullable=False),
    sa.Column("occurred_at", UtcDateTime, nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("prev_hash", sa.String(64), nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
)

chain_head = sa.Table(
    "chain_head",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
)

projections = sa.Table(
    "projections",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("key", sa.String(300), primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("last_seq", sa.BigInteger, nullable=False),
)

projection_cursors = sa.Table(
    "projection_cursors",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("last_seq", sa.BigInteger, nullable=False),
)
