"""Owners' model keys: sealed at rest, bound to their owner, never shown (C-9, W-VAL-8).

>>> from tradeleague.keys import KeyVault, MasterKey, generate_master_key
>>> vault = KeyVault([MasterKey.from_text(generate_master_key())])
>>> sealed = vault.seal("owner-1", "sk-test-0123456789abcd")
>>> str(sealed), vault.open("owner-1", sealed)
('****abcd', 'sk-test-0123456789abcd')
"""

from tradeleague.keys.master import (
    MASTER_KEY_ENV,
    MASTER_KEY_FILE_ENV,
    MasterKey,
    MasterKeyError,
    check_master_keys,
    generate_master_key,
    load_master_keys,
)
from tradeleague.keys.secret import Secret, last4_of, mask
from tradeleague.keys.vault import KeyUnreadable, KeyVault, SealedKey, masked

__all__ = [
    "MASTER_KEY_ENV",
    "MASTER_KEY_FILE_ENV",
    "KeyUnreadable",
    "KeyVault",
    "MasterKey",
    "MasterKeyError",
    "SealedKey",
    "Secret",
    "check_master_keys",
    "generate_master_key",
    "last4_of",
    "load_master_keys",
    "mask",
    "masked",
]
