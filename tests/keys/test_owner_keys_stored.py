"""Owners' keys in the store: sealed, opened at call time, re-sealed when the master key rotates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from tradeleague.keys import KeyUnreadable, KeyVault, MasterKey, Secret, generate_master_key
from tradeleague.keys.stored import OwnerKeys, owner_keys
from tradeleague.store import open_store

AT = datetime(2026, 10, 6, 9, tzinfo=UTC)
PLAIN = "sk-owner-0123456789abcdef"


def test_owner_keys_seal_open_and_rotate(db_url: str) -> None:
    """C-9: only the sealed record is stored; the reader opens it at call time; a new master
    key re-seals every record, and the old key can then be retired."""
    old, new = (
        MasterKey.from_text(generate_master_key()),
        MasterKey.from_text(generate_master_key()),
    )
    with open_store(db_url) as store:
        keys = OwnerKeys(store, KeyVault([old]))
        keys.put("s1", "agent-1", "0xowner", Secret(PLAIN), AT)
        with store.engine.connect() as conn:
            stored = conn.execute(sa.select(owner_keys.c.sealed)).scalar_one()
        assert PLAIN not in stored
        read = keys.reader("s1", "agent-1")
        assert read() == PLAIN
        assert keys.agents("s1") == {"agent-1"}
        rotating = OwnerKeys(store, KeyVault([new, old]))
        assert rotating.rotate(AT) == 1
        assert rotating.rotate(AT) == 0
        assert OwnerKeys(store, KeyVault([new])).open("s1", "agent-1") == PLAIN
        with pytest.raises(KeyUnreadable):
            OwnerKeys(store, KeyVault([old])).open("s1", "agent-1")
        with pytest.raises(KeyUnreadable):
            OwnerKeys(store, None).open("s1", "agent-1")
        with pytest.raises(KeyUnreadable):
            keys.open("s1", "nobody")
