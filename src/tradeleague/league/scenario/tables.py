"""The scenario service's tables, described for queries (migrations ``0002_scenario``, ``0005``).

The accounts, API keys and idempotency records the same migration made are
`tradeleague.accounts.tables`.
"""

from __future__ import annotations

import sqlalchemy as sa

from tradeleague.store.schema import UtcDateTime

__all__ = [
    "metadata",
    "scenario_bars",
    "scenario_run_equity",
    "scenario_runs",
    "scenario_versions",
]

metadata = sa.MetaData()

scenario_versions = sa.Table(
    "scenario_versions",
    metadata,
    sa.Column("id", sa.String(26), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("config", sa.Text, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("bars", sa.Integer, nullable=False),
    sa.Column("dropped", sa.Integer, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

scenario_bars = sa.Table(
    "scenario_bars",
    metadata,
    sa.Column("scenario_id", sa.String(26), primary_key=True),
    sa.Column("symbol", sa.String(20), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("ts", sa.BigInteger, nullable=False),
    sa.Column("open", sa.BigInteger, nullable=False),
    sa.Column("high", sa.BigInteger, nullable=False),
    sa.Column("low", sa.BigInteger, nullable=False),
    sa.Column("close", sa.BigInteger, nullable=False),
    sa.Column("volume", sa.BigInteger, nullable=False),
)

scenario_runs = sa.Table(
    "scenario_runs",
    metadata,
    sa.Column("id", sa.String(26), primary_key=True),
    sa.Column("scenario_id", sa.String(26), nullable=False),
    sa.Column("account", sa.String(100), nullable=False),
    sa.Column("status", sa.String(12), nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("results", sa.Text, nullable=True),
    sa.Column("published_at", UtcDateTime, nullable=True),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("active_at", UtcDateTime, nullable=False),
)

scenario_run_equity = sa.Table(
    "scenario_run_equity",
    metadata,
    sa.Column("run_id", sa.String(26), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("equity", sa.BigInteger, nullable=False),
)
"""A run's equity path, one append-only row per bar reached (bar 0: the starting cash)."""
