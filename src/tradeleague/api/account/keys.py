"""A signed-in wallet's API keys and its month's usage (S-SVC-4, S-SVC-5).

The keys are the service's own accounts' (`tradeleague.accounts.ApiAccounts`),
with the wallet as the account name: issued once (the key is in the creating
answer only), listed by id and prefix, revoked on every server within a second.
The month's usage is the service's (`AccountHost.usage`).
"""

from __future__ import annotations

from typing import Any, Final

import sqlalchemy as sa

from tradeleague.accounts import AccountHost, Tier, iso
from tradeleague.accounts.tables import api_keys
from tradeleague.errors import ServiceError

__all__ = ["WalletKeys"]

_KEY_ID_CHARS: Final = 12


class WalletKeys:
    """A wallet's API keys and usage.

    Parameters
    ----------
    service
        The service the keys are kept in (store, clock, transactions, accounts).
    """

    def __init__(self, service: AccountHost) -> None:
        self.service = service

    def _tier(self, wallet: str) -> Tier:
        return self.service.accounts.tier(wallet)

    def create_key(self, wallet: str) -> dict[str, Any]:
        """Issue an API key for the wallet; the key is in this answer only."""
        key = self.service.accounts.create_key(wallet, self._tier(wallet))
        listed = self.list_keys(wallet)
        made = next(k for k in listed if key.startswith(k["prefix"]) and k["revoked_at"] is None)
        return {**made, "key": key}

    def list_keys(self, wallet: str) -> list[dict[str, Any]]:
        """Return the wallet's API keys (never the keys themselves: an id and a prefix)."""
        query = (
            sa.select(api_keys)
            .where(api_keys.c.account == wallet)
            .order_by(api_keys.c.created_at, api_keys.c.key_hash)
        )
        with self.service.ledger.read("list API keys in") as conn:
            rows = conn.execute(query).all()
        return [
            {
                "id": str(r.key_hash)[:_KEY_ID_CHARS],
                "prefix": str(r.prefix),
                "created_at": iso(r.created_at),
                "revoked_at": iso(r.revoked_at) if r.revoked_at is not None else None,
            }
            for r in rows
        ]

    def revoke_key(self, wallet: str, key_id: str) -> dict[str, Any]:
        """Revoke one of the wallet's keys; every server refuses it within a second.

        Raises
        ------
        ServiceError
            404 ``key_not_found``.
        """
        if len(key_id) != _KEY_ID_CHARS or not all(c in "0123456789abcdef" for c in key_id):
            raise ServiceError(404, "key_not_found", "There is no such API key.")
        now = self.service.clock.now()
        with self.service.ledger.write("revoke an API key in") as conn:
            hashes = [
                str(h)
                for h in conn.execute(
                    sa.select(api_keys.c.key_hash).where(
                        api_keys.c.account == wallet,
                        api_keys.c.key_hash.startswith(key_id),
                        api_keys.c.revoked_at.is_(None),
                    )
                ).scalars()
            ]
            if len(hashes) != 1:
                raise ServiceError(404, "key_not_found", "There is no such API key.")
            conn.execute(
                sa.update(api_keys).where(api_keys.c.key_hash == hashes[0]).values(revoked_at=now)
            )
        forget = hashes[0]
        self.service.ledger.after_commit(lambda: self.service.accounts.forget_key(forget))
        return {"id": key_id, "revoked_at": iso(now)}

    def usage(self, wallet: str) -> dict[str, Any]:
        """Return what the wallet used of its month's quota (S-SVC-5)."""
        return self.service.usage(wallet, self._tier(wallet))
