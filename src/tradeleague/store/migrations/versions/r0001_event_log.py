"""The append-only, hash-chained event log and its read models (SPEC C-4, C-5).

Creates ``events`` (with database triggers that reject UPDATE and DELETE, and
TRUNCATE on PostgreSQL), the single-row ``chain_head`` at the genesis hash,
``projections`` and ``projection_cursors``.

Revision ID: 0001
Revises:
Create Date: 2026-01-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GENESIS = "0" * 64

_PG_TRIGGERS = (
    """
    CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are append-only (SPEC C-4): % on events rejected', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END
    $$
    """,
    """
    CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION events_append_only()
    """,
    """
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()
    """,
)

_SQLITE_TRIGGERS = (
    """
    CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only (SPEC C-4): UPDATE on events rejected'); END
    """,
    """
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only (SPEC C-4): DELETE on events rejected'); END
    """,
)


def upgrade() -> None:
    """Create the event log, its triggers, the chain head and the read models."""
    op.create_table(
        "events",
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("event_id", sa.String(26), nullable=False),
        sa.Column("stream", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(100), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
        sa.UniqueConstraint("event_id", name="uq_events_event_id"),
    )
    op.create_index("ix_events_stream_seq", "events", ["stream", "seq"])
    op.create_index("ix_events_kind_seq", "events", ["kind", "seq"])
    op.create_table(
        "chain_head",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.CheckConstraint("id = 1", name="ck_chain_head_single_row"),
    )
    op.get_bind().execute(
        sa.text("INSERT INTO chain_head (id, seq, hash) VALUES (1, 0, :genesis)"),
        {"genesis": _GENESIS},
    )
    op.create_table(
        "projections",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "projection_cursors",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
    )
    dialect = op.get_bind().dialect.name
    for statement in _PG_TRIGGERS if dialect == "postgresql" else _SQLITE_TRIGGERS:
        op.execute(sa.text(statement))


def downgrade() -> None:
    """Refuse: the event log only moves forward."""
    raise NotImplementedError("downgrades are not supported")
