"""Scenario runs' equity paths in their own append-only table (issue 16).

Until now a run's state row held its whole equity path, so each step rewrote
a row that grew with the run (a step cost O(steps so far)). The path now
lives in ``scenario_run_equity``, one row per bar the run reached (bar 0: the
starting cash; bar ``k``: equity at bar ``k``'s close, S-SCO-1), appended by
each step; the state row keeps only what a step changes.

The rows are append-only like the event log (SPEC C-4): triggers reject
UPDATE and DELETE (and TRUNCATE on PostgreSQL), and on SQLite a replacing
insert (see ``0003_integrity``). Existing runs' paths move out of their state
rows into the table, value for value, so their figures stay as they were.

Revision ID: 0005_scenario_equity
Revises: 0004_owner_accounts
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_scenario_equity"
down_revision: str | None = "0004_owner_accounts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_TRIGGERS = (
    """
    CREATE FUNCTION scenario_run_equity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'scenario equity is append-only: % rejected', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END
    $$
    """,
    """
    CREATE TRIGGER scenario_run_equity_no_update_delete
        BEFORE UPDATE OR DELETE ON scenario_run_equity
        FOR EACH ROW EXECUTE FUNCTION scenario_run_equity_append_only()
    """,
    """
    CREATE TRIGGER scenario_run_equity_no_truncate BEFORE TRUNCATE ON scenario_run_equity
        FOR EACH STATEMENT EXECUTE FUNCTION scenario_run_equity_append_only()
    """,
)

_SQLITE_TRIGGERS = (
    """
    CREATE TRIGGER scenario_run_equity_no_update BEFORE UPDATE ON scenario_run_equity
    BEGIN SELECT RAISE(ABORT, 'scenario equity is append-only: UPDATE rejected'); END
    """,
    """
    CREATE TRIGGER scenario_run_equity_no_delete BEFORE DELETE ON scenario_run_equity
    BEGIN SELECT RAISE(ABORT, 'scenario equity is append-only: DELETE rejected'); END
    """,
    """
    CREATE TRIGGER scenario_run_equity_no_replace BEFORE INSERT ON scenario_run_equity
    WHEN EXISTS (
        SELECT 1 FROM scenario_run_equity WHERE run_id = NEW.run_id AND idx = NEW.idx
    )
    BEGIN SELECT RAISE(ABORT, 'scenario equity is append-only: a bar is stored once');
    END
    """,
)

_RUNS = sa.table("scenario_runs", sa.column("id", sa.String), sa.column("state", sa.Text))
_EQUITY = sa.table(
    "scenario_run_equity",
    sa.column("run_id", sa.String),
    sa.column("idx", sa.Integer),
    sa.column("equity", sa.BigInteger),
)


def _move_paths(connection: sa.Connection) -> None:
    """Move each run's ``equity`` list from its state row into ``scenario_run_equity``.

    The state is rewritten in the same canonical form it was stored in (sorted
    keys, no spaces), less the path.
    """
    ids = connection.execute(sa.select(_RUNS.c.id).order_by(_RUNS.c.id)).scalars().all()
    for run_id in ids:
        text = connection.execute(sa.select(_RUNS.c.state).where(_RUNS.c.id == run_id)).scalar_one()
        state = json.loads(str(text))
        path = state.pop("equity", None)
        if path is None:
            continue
        rows = [
            {"run_id": run_id, "idx": index, "equity": int(str(value))}
            for index, value in enumerate(path)
        ]
        if rows:
            connection.execute(sa.insert(_EQUITY), rows)
        connection.execute(
            sa.update(_RUNS)
            .where(_RUNS.c.id == run_id)
            .values(state=json.dumps(state, sort_keys=True, separators=(",", ":")))
        )


def upgrade() -> None:
    """Create ``scenario_run_equity`` and its triggers; move the runs' paths into it."""
    op.create_table(
        "scenario_run_equity",
        sa.Column("run_id", sa.String(26), sa.ForeignKey("scenario_runs.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("equity", sa.BigInteger, nullable=False),
        sa.CheckConstraint("idx >= 0", name="ck_scenario_run_equity_idx"),
    )
    connection = op.get_bind()
    _move_paths(connection)
    dialect = connection.dialect.name
    for statement in _PG_TRIGGERS if dialect == "postgresql" else _SQLITE_TRIGGERS:
        op.execute(sa.text(statement))


def downgrade() -> None:
    """Refuse: the schema only moves forward."""
    raise NotImplementedError("downgrades are not supported")
