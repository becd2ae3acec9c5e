"""Accounts and their API keys (S-SVC-4).

A key is shown once and stored as its SHA-256 (`tradeleague.accounts.keys`);
a process trusts a key it has checked for `KEY_CACHE_SECONDS`.
"""

from __future__ import annotations

import time
from typing import Final

import sqlalchemy as sa

from tradeleague.accounts.credentials import Credential, refusal
from tradeleague.accounts.keys import Account, Tier, hash_key, new_key
from tradeleague.accounts.ledger import CACHE_LIMIT, Ledger
from tradeleague.accounts.tables import api_accounts, api_keys
from tradeleague.errors import ServiceError

__all__ = ["KEY_ACCOUNT", "KEY_CACHE_SECONDS", "ApiAccounts"]

KEY_CACHE_SECONDS: Final = 1.0
"""How long a process trusts a key it has checked (S-SVC-4).

The check is one indexed read, but on every request; a valid key's account is
cached for this many seconds, so revoking a key or changing its tier in
another process (another server on the same store) takes effect within this
time. Unknown keys are never cached.
"""

KEY_ACCOUNT: Final = (
    sa.select(api_accounts.c.name, api_accounts.c.tier)
    .select_from(api_keys.join(api_accounts, api_keys.c.account == api_accounts.c.name))
    .where(api_keys.c.key_hash == sa.bindparam("p_hash"), api_keys.c.revoked_at.is_(None))
)
"""The account of an unrevoked key hash (parameter ``p_hash``)."""


class ApiAccounts:
    """Create API keys and authenticate requests (S-SVC-4).

    Parameters
    ----------
    ledger
        The store, clock and transactions the accounts' tables are written in.
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._keys: dict[str, tuple[Account, float]] = {}

    def create_key(self, account: str, tier: Tier) -> str:
        """Create (or re-tier) ``account`` and return a new API key for it, once."""
        name = account.strip()
        if not name or len(name) > 100 or not name.isprintable():
            raise ServiceError(422, "invalid_account", "An account name is 1-100 printable chars.")
        key = new_key()
        now = self.ledger.clock.now()
        with self.ledger.write("create an API key in") as conn:
            found = conn.execute(
                sa.select(api_accounts.c.tier).where(api_accounts.c.name == name)
            ).one_or_none()
            if found is None:
                conn.execute(
                    sa.insert(api_accounts).values(name=name, tier=tier.value, created_at=now)
                )
            elif found.tier != tier.value:
                conn.execute(
                    sa.update(api_accounts)
                    .where(api_accounts.c.name == name)
                    .values(tier=tier.value)
                )
            conn.execute(
                sa.insert(api_keys).values(
                    key_hash=hash_key(key), prefix=key[:10], account=name, created_at=now
                )
            )
        self._keys = {h: hit for h, hit in self._keys.items() if hit[0].name != name}
        return key

    def forget_key(self, key_hash: str) -> None:
        """Drop a key from this process's cache (it was revoked here)."""
        self._keys.pop(key_hash, None)

    def authenticate(self, key: str | Credential | None) -> Account:
        """Return the account ``key`` authorises (S-SVC-4).

        ``key`` is the key, or a `Credential` that also says where it was seen
        (the refusal then names it).

        Raises
        ------
        ServiceError
            401 ``missing_api_key`` or ``invalid_api_key``, saying where the key
            was seen, why it failed and how to send one (`refusal`).
        """
        credential = key if isinstance(key, Credential) else Credential(key or None)
        if not credential.key:
            raise refusal(credential)
        digest = hash_key(credential.key)
        moment = time.monotonic()
        hit = self._keys.get(digest)
        if hit is not None and moment < hit[1]:
            return hit[0]
        with self.ledger.read("check an API key in") as conn:
            row = conn.execute(KEY_ACCOUNT, {"p_hash": digest}).one_or_none()
            revoked = (
                row is None
                and conn.execute(
                    sa.select(api_keys.c.revoked_at).where(api_keys.c.key_hash == digest)
                ).first()
                is not None
            )
        if row is None:
            raise refusal(credential, revoked=revoked)
        account = Account(str(row.name), Tier(row.tier))
        if len(self._keys) >= CACHE_LIMIT:
            self._keys.clear()
        self._keys[digest] = (account, moment + KEY_CACHE_SECONDS)
        return account

    def tier(self, name: str) -> Tier:
        """Return account ``name``'s tier (free for an account that has no key yet)."""
        with self.ledger.read("read an account from") as conn:
            tier = conn.execute(
                sa.select(api_accounts.c.tier).where(api_accounts.c.name == name)
            ).scalar_one_or_none()
        return Tier(tier) if tier is not None else Tier.FREE
