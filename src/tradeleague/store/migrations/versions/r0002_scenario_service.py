"""The scenario benchmark service's tables (SPEC S-SCN, S-SVC), beside the event log.

Creates ``scenario_versions`` and their immutable ``scenario_bars`` (database
triggers reject UPDATE and DELETE: S-SCN-2), ``api_accounts``, ``api_keys``
(SHA-256 hashes only), ``scenario_runs`` (mutable run state) and
``idempotency_keys`` (S-SVC-1). Fills and results are *also* appended to the
event log, so ``verify`` covers them.

Revision ID: 0002_scenario
Revises: 0001
Create Date: 2026-01-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_scenario"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_TRIGGERS = (
    """
    CREATE FUNCTION scenario_bars_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'scenario bars are immutable (SPEC S-SCN-2): % rejected', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END
    $$
    """,
    """
    CREATE TRIGGER scenario_bars_no_update_delete BEFORE UPDATE OR DELETE ON scenario_bars
        FOR EACH ROW EXECUTE FUNCTION scenario_bars_immutable()
    """,
    """
    CREATE TRIGGER scenario_bars_no_truncate BEFORE TRUNCATE ON scenario_bars
        FOR EACH STATEMENT EXECUTE FUNCTION scenario_bars_immutable()
    """,
)

_SQLITE_TRIGGERS = (
    """
    CREATE TRIGGER scenario_bars_no_update BEFORE UPDATE ON scenario_bars
    BEGIN SELECT RAISE(ABORT, 'scenario bars are immutable (SPEC S-SCN-2): UPDATE rejected'); END
    """,
    """
    CREATE TRIGGER scenario_bars_no_delete BEFORE DELETE ON scenario_bars
    BEGIN SELECT RAISE(ABORT, 'scenario bars are immutable (SPEC S-SCN-2): DELETE rejected'); END
    """,
)


def upgrade() -> None:
    """Create the scenario service's tables and the bars' immutability triggers."""
    when = sa.DateTime(timezone=True)
    op.create_table(
        "scenario_versions",
        sa.Column("id", sa.String(26), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("bars", sa.Integer, nullable=False),
        sa.Column("dropped", sa.Integer, nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_scenario_versions_name_version"),
    )
    op.create_table(
        "scenario_bars",
        sa.Column(
            "scenario_id", sa.String(26), sa.ForeignKey("scenario_versions.id"), primary_key=True
        ),
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("ts", sa.BigInteger, nullable=False),
        sa.Column("open", sa.BigInteger, nullable=False),
        sa.Column("high", sa.BigInteger, nullable=False),
        sa.Column("low", sa.BigInteger, nullable=False),
        sa.Column("close", sa.BigInteger, nullable=False),
        sa.Column("volume", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "api_accounts",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("tier", sa.String(10), nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.CheckConstraint("tier IN ('free', 'pro')", name="ck_api_accounts_tier"),
    )
    op.create_table(
        "api_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("account", sa.String(100), sa.ForeignKey("api_accounts.name"), nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.Column("revoked_at", when, nullable=True),
    )
    op.create_table(
        "scenario_runs",
        sa.Column("id", sa.String(26), primary_key=True),
        sa.Column(
            "scenario_id", sa.String(26), sa.ForeignKey("scenario_versions.id"), nullable=False
        ),
        sa.Column("account", sa.String(100), sa.ForeignKey("api_accounts.name"), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("results", sa.Text, nullable=True),
        sa.Column("published_at", when, nullable=True),
        sa.Column("created_at", when, nullable=False),
        sa.Column("active_at", when, nullable=False),
        sa.CheckConstraint(
            "status IN ('active', 'complete', 'abandoned')", name="ck_scenario_runs_status"
        ),
    )
    op.create_index("ix_scenario_runs_account_created", "scenario_runs", ["account", "created_at"])
    op.create_index(
        "ix_scenario_runs_scenario_published", "scenario_runs", ["scenario_id", "published_at"]
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("account", sa.String(100), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=True),
        sa.Column("body", sa.Text, nullable=True),
        sa.Column("created_at", when, nullable=False),
    )
    dialect = op.get_bind().dialect.name
    for statement in _PG_TRIGGERS if dialect == "postgresql" else _SQLITE_TRIGGERS:
        op.execute(sa.text(statement))


def downgrade() -> None:
    """Refuse: the schema only moves forward."""
    raise NotImplementedError("downgrades are not supported")
