"""API keys and accounts: random keys, shown once, stored as SHA-256 hashes (S-SVC-4).

A key is 32 random bytes (URL-safe base64) behind the prefix ``tl_``; with that
much entropy a plain SHA-256 is enough (nobody can guess a preimage), and it
keeps each request's look-up a single indexed read.
"""

from __future__ import annotations

import enum
import hashlib
import secrets
from dataclasses import dataclass
from typing import Final

__all__ = ["KEY_PREFIX", "Account", "Tier", "hash_key", "new_key"]

KEY_PREFIX: Final = "tl_"


class Tier(enum.StrEnum):
    """An account's plan, which sets its monthly run quota (S-SVC-5).

    The quotas themselves are each service's (the scenario benchmark's
    `ServicePreset.monthly_runs`: free 25, pro 200 by default).
    """

    FREE = "free"
    PRO = "pro"


@dataclass(frozen=True, slots=True)
class Account:
    """The account an API key authorises."""

    name: str
    tier: Tier


def new_key() -> str:
    """Return a fresh random API key."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """Return the hex SHA-256 of ``key`` (what is stored)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()
