"""Owners' keys sealed at rest: round trip, owner binding, tampering, rotation (C-9, W-VAL-8)."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.keys import (
    MASTER_KEY_ENV,
    MASTER_KEY_FILE_ENV,
    KeyUnreadable,
    KeyVault,
    MasterKey,
    MasterKeyError,
    SealedKey,
    generate_master_key,
    load_master_keys,
    masked,
)

OWNER = "0xowner-a"
OTHER = "0xowner-b"
KEY = "sk-or-v1-3b9c0d5e7f11a2b4"


def _master() -> MasterKey:
    return MasterKey.from_text(generate_master_key())


def _flip(text: str, index: int = 0) -> str:
    raw = bytearray(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    raw[index] ^= 0x01
    return base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


@settings(max_examples=50, deadline=None)
@given(owner=st.text(min_size=1, max_size=40), key=st.text(min_size=1, max_size=200))
def test_keys_round_trip_any_owner_and_key(owner: str, key: str) -> None:
    """C-9: what is sealed opens to exactly the same text, through JSON storage."""
    vault = KeyVault([_master()])
    sealed = vault.seal(owner, key)
    stored = SealedKey.from_json(sealed.to_json())
    assert stored == sealed
    assert vault.open(owner, stored) == key
    assert vault.open_secret(owner, stored).reveal() == key


def test_keys_each_seal_uses_a_fresh_nonce() -> None:
    """C-9: sealing the same key twice gives different ciphertexts (no nonce reuse)."""
    vault = KeyVault([_master()])
    first, second = vault.seal(OWNER, KEY), vault.seal(OWNER, KEY)
    assert first.nonce != second.nonce
    assert first.ciphertext != second.ciphertext


def test_keys_ciphertext_is_bound_to_its_owner() -> None:
    """C-9, W-VAL-8: a record copied to another owner cannot be read."""
    vault = KeyVault([_master()])
    sealed = vault.seal(OWNER, KEY)
    with pytest.raises(KeyUnreadable, match="another owner or was altered"):
        vault.open(OTHER, sealed)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda s: dataclasses.replace(s, ciphertext=_flip(s.ciphertext)),
        lambda s: dataclasses.replace(s, ciphertext=_flip(s.ciphertext, -1)),
        lambda s: dataclasses.replace(s, nonce=_flip(s.nonce)),
        lambda s: dataclasses.replace(s, last4="zzzz"),
        lambda s: dataclasses.replace(s, ciphertext=s.ciphertext[:-4]),
    ],
    ids=["ciphertext", "tag", "nonce", "shown-last4", "truncated"],
)
def test_keys_tampering_is_detected(tamper: object) -> None:
    """C-9, W-VAL-8: any change to a stored field makes the key unreadable."""
    vault = KeyVault([_master()])
    sealed = vault.seal(OWNER, KEY)
    assert callable(tamper)
    with pytest.raises(KeyUnreadable):
        vault.open(OWNER, tamper(sealed))


@pytest.mark.parametrize(
    "record",
    [
        "not json",
        "[]",
        '{"version": 1}',
        '{"version": 2, "key_id": "mk-x", "nonce": "AA", "ciphertext": "AA", "last4": ""}',
        '{"version": 1, "key_id": "mk-x", "nonce": 5, "ciphertext": "AA", "last4": ""}',
    ],
)
def test_keys_malformed_record_is_unreadable(record: str) -> None:
    """W-VAL-8: a record that is not a sealed key is reported, not guessed at."""
    with pytest.raises(KeyUnreadable):
        SealedKey.from_json(record)


def test_keys_bad_base64_nonce_is_unreadable() -> None:
    """W-VAL-8: a record whose nonce is not base64url of 12 bytes is unreadable."""
    vault = KeyVault([_master()])
    sealed = vault.seal(OWNER, KEY)
    for nonce in ("@@@@", "AAAA"):
        with pytest.raises(KeyUnreadable, match="malformed"):
            vault.open(OWNER, dataclasses.replace(sealed, nonce=nonce))


def test_keys_unreadable_maps_to_the_key_unreadable_outcome() -> None:
    """W-VAL-8: an unreadable key is recorded with Outcome.KEY_UNREADABLE."""
    assert KeyUnreadable.outcome is Outcome.KEY_UNREADABLE
    assert KeyUnreadable("x").outcome is Outcome.KEY_UNREADABLE


def test_keys_rotation_reseals_under_the_newest_key() -> None:
    """C-9: after a new master key is added, old records open and re-seal under it."""
    old, new = _master(), _master()
    sealed_old = KeyVault([old]).seal(OWNER, KEY)
    vault = KeyVault([new, old])
    assert vault.current_key_id == new.key_id
    assert vault.needs_rotation(sealed_old)
    assert vault.open(OWNER, sealed_old) == KEY
    rotated = vault.rotate(OWNER, sealed_old)
    assert rotated.key_id == new.key_id
    assert not vault.needs_rotation(rotated)
    assert rotated.last4 == sealed_old.last4
    assert KeyVault([new]).open(OWNER, rotated) == KEY
    with pytest.raises(KeyUnreadable, match="not configured"):
        KeyVault([new]).open(OWNER, sealed_old)


def test_keys_rotation_keeps_owner_binding() -> None:
    """C-9: rotating cannot move a key to another owner."""
    old, new = _master(), _master()
    sealed = KeyVault([old]).seal(OWNER, KEY)
    vault = KeyVault([new, old])
    with pytest.raises(KeyUnreadable):
        vault.rotate(OTHER, sealed)


def test_keys_unknown_master_key_is_unreadable() -> None:
    """W-VAL-8: a record sealed under a key the vault lacks is unreadable, and says which."""
    sealed = KeyVault([_master()]).seal(OWNER, KEY)
    with pytest.raises(KeyUnreadable, match=sealed.key_id):
        KeyVault([_master()]).open(OWNER, sealed)


def test_keys_masked_shows_only_the_last_four() -> None:
    """C-9 (ours): a stored key is shown as its last 4 characters, and a short key as none."""
    vault = KeyVault([_master()])
    assert masked(vault.seal(OWNER, KEY)) == "****a2b4"
    assert str(vault.seal(OWNER, KEY)) == "****" + KEY[-4:]
    short = vault.seal(OWNER, "abcdefgh")
    assert masked(short) == "****"
    assert short.last4 == ""
    assert vault.open(OWNER, short) == "abcdefgh"


def test_keys_empty_inputs_are_refused() -> None:
    """C-9: an empty key or owner is a caller's error, not a stored record."""
    vault = KeyVault([_master()])
    with pytest.raises(ValueError, match="empty key"):
        vault.seal(OWNER, "")
    with pytest.raises(ValueError, match="owner id"):
        vault.seal("", KEY)


def test_keys_master_keys_from_env_newest_first() -> None:
    """C-9: the master keys come from the environment, newest first."""
    new, old = generate_master_key(), generate_master_key()
    keys = load_master_keys({MASTER_KEY_ENV: f"{new}, {old}"})
    assert [k.to_text() for k in keys] == [new, old]
    vault = KeyVault.from_env({MASTER_KEY_ENV: f"{new},{old}"})
    assert vault.current_key_id == keys[0].key_id


def test_keys_master_keys_from_file(tmp_path: Path) -> None:
    """C-9: the master keys can come from a file, one per line, comments allowed."""
    new, old = generate_master_key(), generate_master_key()
    path = tmp_path / "master.keys"
    path.write_text(f"# rotated 2026-03-01\n{new}\n\n{old}  # retired\n", encoding="utf-8")
    keys = load_master_keys({MASTER_KEY_FILE_ENV: str(path)})
    assert [k.to_text() for k in keys] == [new, old]


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "no master key: set TRADELEAGUE_MASTER_KEY"),
        ({MASTER_KEY_ENV: "   "}, "no master key"),
        ({MASTER_KEY_ENV: "short"}, "TRADELEAGUE_MASTER_KEY is malformed: its key 1 is not 32"),
        ({MASTER_KEY_ENV: "!!not base64!!"}, "its key 1 is not 32 bytes .* urlsafe base64 or hex"),
        ({MASTER_KEY_FILE_ENV: "/nonexistent/master.keys"}, "cannot read"),
    ],
)
def test_keys_missing_or_bad_master_key_is_a_clear_error(
    environ: dict[str, str], message: str
) -> None:
    """C-9: without a usable master key nothing is sealed, and the error says what to set."""
    with pytest.raises(MasterKeyError, match=message) as caught:
        KeyVault.from_env(environ)
    assert isinstance(caught.value, ConfigError)


def test_keys_a_master_key_may_be_hex() -> None:
    """C-9: 64 hex digits are the same 32 bytes as their base64url form."""
    key = MasterKey.from_text(generate_master_key())
    assert MasterKey.from_text(key.material.hex()) == key
    with pytest.raises(MasterKeyError):
        MasterKey.from_text(key.material.hex()[:-2])


def test_keys_both_sources_or_duplicates_are_refused() -> None:
    """C-9: an ambiguous master key configuration is refused."""
    key = generate_master_key()
    with pytest.raises(MasterKeyError, match="not both"):
        load_master_keys({MASTER_KEY_ENV: key, MASTER_KEY_FILE_ENV: "/nonexistent/k"})
    with pytest.raises(MasterKeyError, match="twice"):
        load_master_keys({MASTER_KEY_ENV: f"{key},{key}"})
    with pytest.raises(MasterKeyError):
        KeyVault([])


def test_keys_master_key_id_is_stable_and_key_text_round_trips() -> None:
    """C-9: a master key's id depends only on the key, so a record names its key."""
    text = generate_master_key()
    first, second = MasterKey.from_text(text), MasterKey.from_text(text + "\n")
    assert first.key_id == second.key_id
    assert first.to_text() == text
    assert first.key_id != _master().key_id
    assert text not in repr(first)


def test_keys_sealed_json_has_only_the_documented_fields() -> None:
    """C-9: the stored record holds key id, nonce, ciphertext and last4, nothing else."""
    sealed = KeyVault([_master()]).seal(OWNER, KEY)
    data = json.loads(sealed.to_json())
    assert set(data) == {"version", "key_id", "nonce", "ciphertext", "last4"}
    assert SealedKey.from_dict(data) == sealed
