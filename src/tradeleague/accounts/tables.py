"""The accounts' tables, described for queries (migration ``0002_scenario``).

Accounts and their API keys (S-SVC-4) and the idempotency records of the
requests made with them (S-SVC-1). The migration that creates them is the
scenario service's, which was their first user; nothing in them is about
scenarios.
"""

from __future__ import annotations

import sqlalchemy as sa

from tradeleague.store.schema import UtcDateTime

__all__ = ["api_accounts", "api_keys", "idempotency_keys", "metadata"]

metadata = sa.MetaData()

api_accounts = sa.Table(
    "api_accounts",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("tier", sa.String(10), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("key_hash", sa.String(64), primary_key=True),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("account", sa.String(100), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("revoked_at", UtcDateTime, nullable=True),
)

idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    sa.Column("account", sa.String(100), primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("request_hash", sa.String(64), nullable=False),
    sa.Column("status_code", sa.Integer, nullable=True),
    sa.Column("body", sa.Text, nullable=True),
    sa.Column("created_at", UtcDateTime, nullable=False),
)
