"""Owners' model keys, encrypted at rest and bound to their owner (C-9, W-VAL-8).

Scheme: AES-256-GCM under the newest master key (:mod:`tradeleague.keys.master`),
a fresh random 96-bit nonce per seal, and as associated data the scheme version,
the master key id, the shown last four characters and the owner id. So a
ciphertext opens only for the owner it was sealed for (copying a row to another
owner makes it unreadable), and tampering with any stored field, the shown last
four included, is detected. AES-GCM was chosen over Fernet because it binds
associated data natively; rotation is by key id rather than MultiFernet.

Opening never guesses: a wrong owner, a tampered or malformed record, or a
master key the vault no longer holds raises :class:`KeyUnreadable`, which the
league records as "No decision" with ``Outcome.KEY_UNREADABLE`` (W-VAL-8) and
counts toward pausing a Pro agent (W-VAL-9). Nothing here logs, formats or
raises with the plaintext: a :class:`SealedKey` prints only its mask, and
:class:`~tradeleague.keys.secret.Secret` carries an opened key.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tradeleague.calls import Outcome
from tradeleague.errors import TradeleagueError
from tradeleague.keys.master import MasterKey, MasterKeyError, load_master_keys
from tradeleague.keys.secret import Secret, last4_of, mask

__all__ = ["SEAL_VERSION", "KeyUnreadable", "KeyVault", "SealedKey", "masked"]

SEAL_VERSION = 1
_NONCE_BYTES = 12
_AAD_LABEL = "tradeleague/owner-key"

_log = logging.getLogger(__name__)


class KeyUnreadable(TradeleagueError):
    """An owner's sealed key cannot be opened (W-VAL-8: ``Outcome.KEY_UNREADABLE``).

    The message says why (wrong owner or tampered, unknown master key,
    malformed record) and never holds any part of the key.
    """

    outcome: ClassVar[Outcome] = Outcome.KEY_UNREADABLE


@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class SealedKey:
    """An owner's key as stored: JSON-safe, and printable without leaking (C-9).

    Attributes
    ----------
    key_id
        The id of the master key that sealed it.
    nonce, ciphertext
        base64url text; the ciphertext carries the GCM tag.
    last4
        The characters C-9 lets us show (empty for a short key).
    version
        The sealing scheme.
    """

    key_id: str
    nonce: str
    ciphertext: str
    last4: str
    version: int = SEAL_VERSION

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-safe mapping."""
        return {
            "version": self.version,
            "key_id": self.key_id,
            "nonce": self.nonce,
            "ciphertext": self.ciphertext,
            "last4": self.last4,
        }

    def to_json(self) -> str:
        """Return the record as a JSON string."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SealedKey:
        """Read a record written by :meth:`to_dict`.

        Raises
        ------
        KeyUnreadable
            If a field is missing, of the wrong type, or the version is unknown.
        """
        fields = ("key_id", "nonce", "ciphertext", "last4")
        if not isinstance(data, Mapping) or any(
            not isinstance(data.get(name), str) for name in fields
        ):
            raise KeyUnreadable("the sealed key record is malformed")
        if data.get("version") != SEAL_VERSION:
            raise KeyUnreadable(f"unknown sealed key version {data.get('version')!r}")
        return cls(**{name: data[name] for name in fields}, version=SEAL_VERSION)

    @classmethod
    def from_json(cls, text: str) -> SealedKey:
        """Read a record written by :meth:`to_json`.

        Raises
        ------
        KeyUnreadable
            If ``text`` is not JSON or not a sealed key record.
        """
        try:
            data = json.loads(text)
        except ValueError:
            raise KeyUnreadable("the sealed key record is not JSON") from None
        return cls.from_dict(data)

    def __repr__(self) -> str:
        return f"SealedKey(key_id={self.key_id!r}, shown={mask(self.last4)!r})"

    def __str__(self) -> str:
        return mask(self.last4)


def masked(sealed: SealedKey) -> str:
    """Return how a stored key may be shown: ``****`` then its last 4 characters (C-9)."""
    return mask(sealed.last4)


class KeyVault:
    """Seal and open owners' keys under the operator's master keys (C-9).

    Parameters
    ----------
    master_keys
        Newest first; new seals use the first, the rest only open older records.

    Raises
    ------
    MasterKeyError
        If ``master_keys`` is empty or names a key twice.
    """

    def __init__(self, master_keys: Sequence[MasterKey]) -> None:
        if not master_keys:
            raise MasterKeyError("a KeyVault needs at least one master key")
        self._keys = {key.key_id: AESGCM(key.material) for key in master_keys}
        if len(self._keys) != len(master_keys):
            raise MasterKeyError("the same master key is listed twice")
        self._current = master_keys[0].key_id

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> KeyVault:
        """Build a vault from ``TRADELEAGUE_MASTER_KEY`` or ``TRADELEAGUE_MASTER_KEY_FILE``.

        Raises
        ------
        MasterKeyError
            If no master key is configured or one is malformed (the message says
            which variable to set).
        """
        return cls(load_master_keys(environ))

    @property
    def current_key_id(self) -> str:
        """The id of the master key new seals use."""
        return self._current

    def seal(self, owner_id: str, plaintext: str | Secret) -> SealedKey:
        """Encrypt ``plaintext`` for ``owner_id`` under the newest master key.

        Raises
        ------
        ValueError
            If the owner id or the key is empty.
        """
        value = plaintext.reveal() if isinstance(plaintext, Secret) else plaintext
        if not owner_id:
            raise ValueError("an owner id is required to seal a key")
        if not value:
            raise ValueError("an empty key cannot be sealed")
        last4 = last4_of(value)
        nonce = os.urandom(_NONCE_BYTES)
        aad = _associated_data(self._current, last4, owner_id)
        ciphertext = self._keys[self._current].encrypt(nonce, value.encode("utf-8"), aad)
        _log.debug("sealed a key for owner %s under master key %s", owner_id, self._current)
        return SealedKey(
            key_id=self._current,
            nonce=_b64(nonce),
            ciphertext=_b64(ciphertext),
            last4=last4,
        )

    def open(self, owner_id: str, sealed: SealedKey) -> str:
        """Decrypt ``sealed`` for ``owner_id`` and return the plaintext.

        Prefer :meth:`open_secret` unless the plaintext goes straight into a call.

        Raises
        ------
        KeyUnreadable
            If the master key is unknown, the record is malformed or tampered
            with, or it was sealed for another owner (W-VAL-8).
        """
        cipher = self._keys.get(sealed.key_id)
        if cipher is None:
            _log.warning("key of owner %s: master key %s is not held", owner_id, sealed.key_id)
            raise KeyUnreadable(
                f"the key was sealed under master key {sealed.key_id}, which is not "
                f"configured (held: {', '.join(self._keys)})"
            )
        try:
            nonce, ciphertext = _unb64(sealed.nonce), _unb64(sealed.ciphertext)
        except ValueError:
            raise KeyUnreadable("the sealed key record is malformed") from None
        if len(nonce) != _NONCE_BYTES:
            raise KeyUnreadable("the sealed key record is malformed")
        aad = _associated_data(sealed.key_id, sealed.last4, owner_id)
        try:
            value = cipher.decrypt(nonce, ciphertext, aad).decode("utf-8")
        except (InvalidTag, UnicodeDecodeError):
            _log.warning("key of owner %s failed authentication", owner_id)
            raise KeyUnreadable(
                "the key does not authenticate: it belongs to another owner or was altered"
            ) from None
        _log.debug("opened the key of owner %s (master key %s)", owner_id, sealed.key_id)
        return value

    def open_secret(self, owner_id: str, sealed: SealedKey) -> Secret:
        """Decrypt ``sealed`` for ``owner_id`` into a :class:`Secret`.

        Raises
        ------
        KeyUnreadable
            As :meth:`open`.
        """
        return Secret(self.open(owner_id, sealed))

    def needs_rotation(self, sealed: SealedKey) -> bool:
        """Tell whether ``sealed`` was sealed under a master key other than the newest."""
        return sealed.key_id != self._current

    def rotate(self, owner_id: str, sealed: SealedKey) -> SealedKey:
        """Re-seal ``sealed`` under the newest master key (a fresh nonce every time).

        Raises
        ------
        KeyUnreadable
            If ``sealed`` cannot be opened; the stored record stays as it was.
        """
        rotated = self.seal(owner_id, Secret(self.open(owner_id, sealed)))
        _log.info(
            "re-sealed the key of owner %s: %s -> %s", owner_id, sealed.key_id, rotated.key_id
        )
        return rotated


def _associated_data(key_id: str, last4: str, owner_id: str) -> bytes:
    return json.dumps([_AAD_LABEL, SEAL_VERSION, key_id, last4, owner_id]).encode("utf-8")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None
