"""Owners' accounts: sign-in nonces, sessions and sealed model keys (issue 15).

Creates ``account_nonces`` (one per sign-in attempt, used once, with its
expiry), ``account_sessions`` (server-side sessions, stored as SHA-256 hashes
of the cookie's id) and ``owner_keys`` (an owner's model key sealed by the
vault, AES-GCM bound to the owner: never plaintext).

Revision ID: 0004_owner_accounts
Revises: 0003_integrity
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_owner_accounts"
down_revision: str | None = "0003_integrity"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the owners' account tables."""
    when = sa.DateTime(timezone=True)
    op.create_table(
        "account_nonces",
        sa.Column("nonce", sa.String(64), primary_key=True),
        sa.Column("domain", sa.String(255), nullable=False),
        sa.Column("chain_id", sa.Integer, nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.Column("expires_at", when, nullable=False),
        sa.Column("used_at", when, nullable=True),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("wallet", sa.String(42), nullable=False),
        sa.Column("created_at", when, nullable=False),
        sa.Column("expires_at", when, nullable=False),
        sa.Column("ended_at", when, nullable=True),
    )
    op.create_table(
        "owner_keys",
        sa.Column("season", sa.String(100), primary_key=True),
        sa.Column("agent", sa.String(26), primary_key=True),
        sa.Column("owner", sa.String(42), nullable=False),
        sa.Column("sealed", sa.Text, nullable=False),
        sa.Column("updated_at", when, nullable=False),
    )


def downgrade() -> None:
    """Refuse: the schema only moves forward."""
    raise NotImplementedError("downgrades are not supported")
