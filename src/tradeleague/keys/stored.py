"""Owners' sealed keys in the store, and the key reader the gateway calls (C-9, W-VAL-8).

`OwnerKeys.put` seals an owner's key with the vault (AES-GCM bound to the
owner) and keeps only the sealed record in ``owner_keys``: no column ever holds
the plaintext. `OwnerKeys.reader` returns the function a model agent hands the
gateway as its key: it reads the sealed record and opens it when the call is
made, so a key replaced between rounds is used from the next call, and a key
that cannot be opened becomes ``key_unreadable`` (W-VAL-8) rather than a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import sqlalchemy as sa

from tradeleague.keys.secret import Secret
from tradeleague.keys.vault import KeyUnreadable, KeyVault, SealedKey
from tradeleague.store import Store
from tradeleague.store.schema import UtcDateTime

__all__ = ["OwnerKeys", "owner_keys"]

owner_keys = sa.Table(
    "owner_keys",
    sa.MetaData(),
    sa.Column("season", sa.String(100), primary_key=True),
    sa.Column("agent", sa.String(26), primary_key=True),
    sa.Column("owner", sa.String(42), nullable=False),
    sa.Column("sealed", sa.Text, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
)
"""One sealed key per agent of a season (migration ``0004_owner_accounts``)."""


class OwnerKeys:
    """Seal owners' keys into the store and read them back at call time.

    Parameters
    ----------
    store
        Where the sealed records live.
    vault
        The vault (master keys); ``None`` when the operator configured none, so
        keys can be neither stored nor opened.
    """

    def __init__(self, store: Store, vault: KeyVault | None) -> None:
        self._store = store
        self._vault = vault

    @property
    def enabled(self) -> bool:
        """Whether a vault is configured (owners' keys can be stored)."""
        return self._vault is not None

    def put(self, season: str, agent: str, owner: str, key: Secret, at: datetime) -> SealedKey:
        """Seal ``key`` for ``owner`` and store it as ``agent``'s key, replacing any before.

        Raises
        ------
        KeyUnreadable
            If no vault is configured.
        """
        if self._vault is None:
            raise KeyUnreadable("no master key is configured, so keys cannot be stored")
        sealed = self._vault.seal(owner, key)
        where = (owner_keys.c.season == season, owner_keys.c.agent == agent)
        with self._store.transaction("store an owner's key in", write=True) as conn:
            conn.execute(sa.delete(owner_keys).where(*where))
            conn.execute(
                sa.insert(owner_keys).values(
                    season=season, agent=agent, owner=owner, sealed=sealed.to_json(), updated_at=at
                )
            )
        return sealed

    def agents(self, season: str) -> set[str]:
        """Return the agents of ``season`` with a stored key."""
        query = sa.select(owner_keys.c.agent).where(owner_keys.c.season == season)
        with self._store.transaction("list owners' keys in") as conn:
            return {str(a) for a in conn.execute(query).scalars()}

    def open(self, season: str, agent: str) -> str:
        """Return ``agent``'s key in plaintext (for the provider call only).

        Raises
        ------
        KeyUnreadable
            If there is no vault or no record, or the record does not open.
        """
        if self._vault is None:
            raise KeyUnreadable("no master key is configured, so the owner's key cannot be read")
        query = sa.select(owner_keys.c.owner, owner_keys.c.sealed).where(
            owner_keys.c.season == season, owner_keys.c.agent == agent
        )
        with self._store.transaction("read an owner's key from") as conn:
            row = conn.execute(query).one_or_none()
        if row is None:
            raise KeyUnreadable("the owner has stored no key")
        return self._vault.open(str(row.owner), SealedKey.from_json(str(row.sealed)))

    def rotate(self, at: datetime) -> int:
        """Re-seal every stored key sealed under an older master key; return how many.

        A record that does not open is left as it was (its agent's calls keep
        reading ``key_unreadable`` until the owner stores a new key).

        Raises
        ------
        KeyUnreadable
            If no vault is configured.
        """
        if self._vault is None:
            raise KeyUnreadable("no master key is configured, so keys cannot be re-sealed")
        done = 0
        with self._store.transaction("re-seal owners' keys in", write=True) as conn:
            rows = conn.execute(sa.select(owner_keys)).all()
            for row in rows:
                try:
                    sealed = SealedKey.from_json(str(row.sealed))
                    if not self._vault.needs_rotation(sealed):
                        continue
                    fresh = self._vault.rotate(str(row.owner), sealed)
                except KeyUnreadable:
                    continue
                conn.execute(
                    sa.update(owner_keys)
                    .where(owner_keys.c.season == row.season, owner_keys.c.agent == row.agent)
                    .values(sealed=fresh.to_json(), updated_at=at)
                )
                done += 1
        return done

    def reader(self, season: str, agent: str) -> Callable[[], str]:
        """Return a key reader for the gateway: it opens ``agent``'s key when called."""

        def read() -> str:
            return self.open(season, agent)

        return read
