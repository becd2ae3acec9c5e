"""The owners' account tables, described for queries (migration ``0004_owner_accounts``)."""

from __future__ import annotations

import sqlalchemy as sa

from tradeleague.keys.stored import owner_keys
from tradeleague.store.schema import UtcDateTime

__all__ = ["account_nonces", "account_sessions", "metadata", "owner_keys"]


metadata = sa.MetaData()

account_nonces = sa.Table(
    "account_nonces",
    metadata,
    sa.Column("nonce", sa.String(64), primary_key=True),
    sa.Column("domain", sa.String(255), nullable=False),
    sa.Column("chain_id", sa.Integer, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=False),
    sa.Column("used_at", UtcDateTime, nullable=True),
)

account_sessions = sa.Table(
    "account_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("wallet", sa.String(42), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=False),
    sa.Column("ended_at", UtcDateTime, nullable=True),
)
