"""Master keys: where they come from, how they are named, how they rotate (C-9).

Owners' keys are sealed under a master key the operator supplies, never one the
code or the database holds:

* ``TRADELEAGUE_MASTER_KEY``: one or more keys separated by commas or spaces, or
* ``TRADELEAGUE_MASTER_KEY_FILE``: a file with one key per line (``#`` comments
  allowed).

Each key is 32 random bytes written in base64url (``tradeleague.keys.generate_master_key``
makes one) or as 64 hex digits. `check_master_keys` is what ``serve`` and ``run``
call at start: a variable that is set but malformed stops them in one sentence.
The list is **newest first**: new keys are sealed under the first;
older ones stay only so existing ciphertexts can still be opened until they are
re-sealed (:meth:`tradeleague.keys.KeyVault.rotate`). A key's id is derived from
the key itself (a truncated SHA-256 under a fixed label), so a ciphertext names
the key that sealed it without any configuration that could fall out of step.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tradeleague.errors import ConfigError

__all__ = [
    "MASTER_KEY_BYTES",
    "MASTER_KEY_ENV",
    "MASTER_KEY_FILE_ENV",
    "MasterKey",
    "MasterKeyError",
    "check_master_keys",
    "generate_master_key",
    "load_master_keys",
]

MASTER_KEY_ENV = "TRADELEAGUE_MASTER_KEY"
MASTER_KEY_FILE_ENV = "TRADELEAGUE_MASTER_KEY_FILE"
MASTER_KEY_BYTES = 32
"""AES-256: a master key is 32 bytes."""

_ID_LABEL = b"tradeleague/master-key-id/v1\x00"


class MasterKeyError(ConfigError):
    """No master key is configured, or one that is configured is malformed."""


@dataclass(frozen=True, slots=True)
class MasterKey:
    """One master key and its id; the key bytes never appear in its repr.

    Parameters
    ----------
    material
        The 32 key bytes.
    """

    material: bytes = field(repr=False)
    key_id: str = field(init=False)

    def __post_init__(self) -> None:
        if len(self.material) != MASTER_KEY_BYTES:
            raise MasterKeyError(f"a master key is {MASTER_KEY_BYTES} bytes")
        digest = hashlib.sha256(_ID_LABEL + self.material).hexdigest()
        object.__setattr__(self, "key_id", f"mk-{digest[:12]}")

    @classmethod
    def from_text(cls, text: str) -> MasterKey:
        """Read a key from its text form: base64url, or 64 hex digits.

        Raises
        ------
        MasterKeyError
            If ``text`` is neither base64url nor hex of exactly 32 bytes (the
            message never repeats the text).
        """
        cleaned = text.strip()
        if re.fullmatch(f"[0-9a-fA-F]{{{2 * MASTER_KEY_BYTES}}}", cleaned):
            return cls(bytes.fromhex(cleaned))
        try:
            material = base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4))
        except (binascii.Error, ValueError):
            raise MasterKeyError("a master key is not valid base64url") from None
        if len(material) != MASTER_KEY_BYTES or not re.fullmatch(r"[A-Za-z0-9_-]+=*", cleaned):
            raise MasterKeyError(
                f"a master key must be {MASTER_KEY_BYTES} bytes in urlsafe base64 or hex"
            )
        return cls(material)

    def to_text(self) -> str:
        """Return the base64url text form (for the environment or a key file)."""
        return base64.urlsafe_b64encode(self.material).decode("ascii").rstrip("=")


def generate_master_key() -> str:
    """Return a new random master key in its text form."""
    return MasterKey(secrets.token_bytes(MASTER_KEY_BYTES)).to_text()


def load_master_keys(environ: Mapping[str, str] | None = None) -> tuple[MasterKey, ...]:
    """Read the master keys, newest first, from the environment or the key file.

    Raises
    ------
    MasterKeyError
        If neither variable is set, both are, the file cannot be read, it holds
        no key, a key is malformed, or a key is listed twice.
    """
    env = os.environ if environ is None else environ
    inline = env.get(MASTER_KEY_ENV, "").strip()
    file_name = env.get(MASTER_KEY_FILE_ENV, "").strip()
    if inline and file_name:
        raise MasterKeyError(f"set {MASTER_KEY_ENV} or {MASTER_KEY_FILE_ENV}, not both")
    if inline:
        source, entries = MASTER_KEY_ENV, re.split(r"[,\s]+", inline)
    elif file_name:
        source, entries = file_name, _read_key_file(Path(file_name))
    else:
        raise MasterKeyError(
            f"no master key: set {MASTER_KEY_ENV} (or {MASTER_KEY_FILE_ENV} to a file) "
            "to one or more base64url 32-byte keys, newest first; "
            "`python -c 'from tradeleague.keys import generate_master_key as g; print(g())'` "
            "makes one"
        )
    keys: list[MasterKey] = []
    for number, entry in enumerate((e for e in entries if e), start=1):
        try:
            keys.append(MasterKey.from_text(entry))
        except MasterKeyError:
            raise MasterKeyError(
                f"{source} is malformed: its key {number} is not {MASTER_KEY_BYTES} bytes "
                "written in urlsafe base64 or hex (make one with `python -c 'from "
                "tradeleague.keys import generate_master_key as g; print(g())'`)"
            ) from None
    if not keys:
        raise MasterKeyError(f"{source} holds no master key")
    ids = [key.key_id for key in keys]
    if len(set(ids)) != len(ids):
        raise MasterKeyError(f"{source} lists the same master key twice")
    return tuple(keys)


def check_master_keys(environ: Mapping[str, str] | None = None) -> None:
    """Stop at start if a master key variable is set but cannot be read.

    Neither variable set is allowed (the server then stores no owner keys);
    one set with a malformed key is a configuration error, never a silent
    ``vault_unavailable`` later.

    Raises
    ------
    MasterKeyError
        In one sentence naming the variable (and, for a malformed key, the form
        expected), from `load_master_keys`.
    """
    env = os.environ if environ is None else environ
    named = [n for n in (MASTER_KEY_ENV, MASTER_KEY_FILE_ENV) if env.get(n, "").strip()]
    if not named:
        return
    load_master_keys(env)


def _read_key_file(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MasterKeyError(f"cannot read {MASTER_KEY_FILE_ENV} {path}: {exc.strerror}") from None
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line]
