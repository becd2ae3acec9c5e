"""Signed chain heads: a head ``SEQ:HASH`` signed with Ed25519, kept outside the database.

The hash chain proves that no stored event was changed, but not that none was
cut from the end or appended with a recomputed hash: whoever can write the
database can also rewrite the head row. A head signed by the operator's key and
published elsewhere closes that hole up to the signed seq: ``verify
--checkpoint FILE`` checks the signature and that the log still holds that
event with exactly that hash.

A key file is an unencrypted PKCS#8 PEM Ed25519 private key (written with
mode 0600). A signed head file is JSON::

    {"v": 1, "seq": N, "hash": "<64 hex>", "public_key": "<64 hex>", "signature": "<128 hex>"}

and the signed message is ``tradeleague-chain-head:v1:{seq}:{hash}`` in ASCII.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tradeleague import untrusted
from tradeleague.errors import ConfigError

__all__ = [
    "MAX_SEQ",
    "SignedHead",
    "generate_key",
    "load_key",
    "parse_checkpoint",
    "read_signed_head",
    "sign_head",
]

MAX_SEQ: Final = 2**63 - 1
"""The largest sequence number a log can hold (a signed 64-bit column)."""

_MAX_FILE_BYTES: Final = 4096
_HEX: Final = frozenset("0123456789abcdef")


def _message(seq: int, digest: str) -> bytes:
    return f"tradeleague-chain-head:v1:{seq}:{digest}".encode("ascii")


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and set(text) <= _HEX


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A chain head and its Ed25519 signature.

    Attributes
    ----------
    seq, hash
        The head: the last sequence number and its hash.
    public_key
        The signer's raw public key, 64 hex digits.
    signature
        The signature of the head's message, 128 hex digits.
    """

    seq: int
    hash: str
    public_key: str
    signature: str

    def to_json(self) -> str:
        """Return the file's text (JSON, one object, newline-terminated)."""
        data = {
            "v": 1,
            "seq": self.seq,
            "hash": self.hash,
            "public_key": self.public_key,
            "signature": self.signature,
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def signature_valid(self) -> bool:
        """Return whether ``signature`` signs this head under ``public_key``."""
        try:
            key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(self.public_key))
            key.verify(bytes.fromhex(self.signature), _message(self.seq, self.hash))
        except (InvalidSignature, ValueError):
            return False
        return True


def generate_key(path: Path) -> str:
    """Write a new Ed25519 private key to ``path`` (mode 0600) and return its public key (hex).

    Raises
    ------
    ConfigError
        If ``path`` exists already or cannot be written.
    """
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigError(f"The key file {path} exists already; it is never overwritten.") from None
    except OSError as exc:
        raise ConfigError(f"Cannot write the key file {path}: {exc.strerror}.") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    return _public_hex(key)


def _public_hex(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw.hex()


def load_key(path: Path) -> Ed25519PrivateKey:
    """Read the Ed25519 private key in ``path``.

    Raises
    ------
    ConfigError
        If the file is missing, too large, or not an unencrypted Ed25519 PEM key.
    """
    try:
        data = path.read_bytes()[: _MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise ConfigError(f"Cannot read the key file {path}: {exc.strerror}.") from None
    try:
        if len(data) > _MAX_FILE_BYTES:
            raise ValueError("too large")
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise ConfigError(f"The key file {path} is not an unencrypted Ed25519 PEM key.") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"The key file {path} holds a key that is not Ed25519.")
    return key


def sign_head(key: Ed25519PrivateKey, seq: int, digest: str) -> SignedHead:
    """Return the head ``seq``/``digest`` signed with ``key``."""
    signature = key.sign(_message(seq, digest)).hex()
    return SignedHead(seq, digest, _public_hex(key), signature)


def parse_checkpoint(text: str) -> tuple[int, str]:
    """Return the ``(seq, hash)`` that ``SEQ:HASH`` names.

    Raises
    ------
    ConfigError
        In one sentence, if it is not ``SEQ:HASH`` or the seq is out of range.
    """
    seq, sep, digest = text.strip().partition(":")
    digest = digest.lower()
    if not sep or not seq.isascii() or not seq.isdigit() or not _is_hex(digest, 64):
        raise ConfigError(
            "The checkpoint is neither SEQ:HASH (a 64-hex-digit hash) nor a signed head file."
        )
    if len(seq) > 19 or int(seq) > MAX_SEQ:
        raise ConfigError(f"The checkpoint's seq is larger than any log can hold ({MAX_SEQ}).")
    return int(seq), digest


def read_signed_head(path: Path) -> SignedHead:
    """Read and check a signed head file written by `SignedHead.to_json`.

    The signature is checked against the public key the file names; pin the
    signer by comparing `SignedHead.public_key` with the one you trust.

    Raises
    ------
    ConfigError
        In one sentence, if the file cannot be read, is malformed, or its
        signature does not verify.
    """
    try:
        data = path.read_bytes()[: _MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise ConfigError(f"Cannot read the signed head {path}: {exc.strerror}.") from None
    try:
        if len(data) > _MAX_FILE_BYTES:
            raise ValueError("too large")
        doc = untrusted.loads(data, max_depth=4, max_chars=_MAX_FILE_BYTES)
    except ValueError:
        raise ConfigError(f"The signed head {path} is not a small JSON object.") from None
    head = _signed_head(doc)
    if head is None:
        raise ConfigError(f"The signed head {path} lacks a valid seq, hash, key or signature.")
    if not head.signature_valid():
        raise ConfigError(f"The signature in {path} does not match its head.")
    return head


def _signed_head(doc: object) -> SignedHead | None:
    if not isinstance(doc, dict) or doc.get("v") != 1:
        return None
    seq, digest = doc.get("seq"), doc.get("hash")
    public_key, signature = doc.get("public_key"), doc.get("signature")
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
        return None
    if not (isinstance(digest, str) and _is_hex(digest, 64)):
        return None
    if not (isinstance(public_key, str) and _is_hex(public_key, 64)):
        return None
    if not (isinstance(signature, str) and _is_hex(signature, 128)):
        return None
    return SignedHead(seq, digest, public_key, signature)
