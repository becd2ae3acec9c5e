"""Anonymous writes: per-address counters and visitors' names (issue 24).

Creates ``write_limits`` (how many writes without an account one client
address made in one time window; every ``serve`` process on the store counts
in the same rows, so the limit holds across processes) and ``visitor_names``
(who first used a visitor's name: a hash of their visitor cookie, so a later
call under that name from anyone else is refused).

Revision ID: 0006_write_limits
Revises: 0005_scenario_equity
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_write_limits"
down_revision: str | None = "0005_scenario_equity"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the anonymous writes' tables."""
    when = sa.DateTime(timezone=True)
    op.create_table(
        "write_limits",
        sa.Column("client", sa.String(64), primary_key=True),
        sa.Column("window", sa.BigInteger, primary_key=True),
        sa.Column("hits", sa.Integer, nullable=False),
    )
    op.create_table(
        "visitor_names",
        sa.Column("name_key", sa.String(64), primary_key=True),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("first_at", when, nullable=False),
    )


def downgrade() -> None:
    """Refuse: the schema only moves forward."""
    raise NotImplementedError("downgrades are not supported")
