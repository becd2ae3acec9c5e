"""Store integrity: no row of the log replaced on SQLite, and who writes each stream.

SQLite's ``REPLACE INTO`` and ``INSERT OR REPLACE`` delete the conflicting row
without firing DELETE triggers (recursive triggers are off), so they could
rewrite an event behind the append-only triggers: a BEFORE INSERT trigger now
refuses any insert that names a seq or event id the log already holds.
PostgreSQL's only equivalent (``INSERT ... ON CONFLICT DO UPDATE``) already
fires the UPDATE trigger.

``stream_writers`` names the process that holds a stream's single writer
(a replay or host); the lock itself is a PostgreSQL advisory lock or, on
SQLite, a file lock beside the database (`tradeleague.store.writers`), both
released by the operating system when their holder dies.

Revision ID: 0003_integrity
Revises: 0002_scenario
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_integrity"
down_revision: str | None = "0002_scenario"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_NO_REPLACE = """
CREATE TRIGGER events_no_replace BEFORE INSERT ON events
WHEN EXISTS (SELECT 1 FROM events WHERE seq = NEW.seq OR event_id = NEW.event_id)
BEGIN SELECT RAISE(ABORT, 'events are append-only (SPEC C-4): an event is stored once'); END
"""


def upgrade() -> None:
    """Refuse replacing inserts on SQLite; create ``stream_writers``."""
    op.create_table(
        "stream_writers",
        sa.Column("stream", sa.String(200), primary_key=True),
        sa.Column("holder", sa.String(300), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute(sa.text(_SQLITE_NO_REPLACE))


def downgrade() -> None:
    """Refuse: the schema only moves forward."""
    raise NotImplementedError("downgrades are not supported")
