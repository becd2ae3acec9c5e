"""Signed chain heads, published by the host after every slot (issue 10).

With ``head_key`` and ``head_out`` in the league file's ``[league]`` table,
the host signs the store's chain head with the Ed25519 key (``tradeleague db
keygen``) after each slot it plays or records missed, and once more when it
stops, and writes the signed head to ``head_out`` (replaced whole, never half
written). Copy that file somewhere the database's writers cannot reach; then
``tradeleague verify --checkpoint head.json --signer PUBLIC_KEY --to-head``
proves that no event up to it was cut, rewritten or appended with a forged
hash (see ``tradeleague.store.signing``).

A head that cannot be read or written is logged and the league plays on: publishing is
evidence about the record, never a reason to stop keeping it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from tradeleague.errors import StoreError
from tradeleague.store import Store
from tradeleague.store.signing import SignedHead, load_key, sign_head

__all__ = ["HeadPublisher"]

_log = logging.getLogger("tradeleague.host")


class HeadPublisher:
    """Signs a store's chain head with one key and writes it to one file.

    Raises
    ------
    ConfigError
        If the key file cannot be read or is not an Ed25519 key (at construction).
    """

    def __init__(self, key: Path, out: Path) -> None:
        self._key = load_key(key)
        self._out = out

    @property
    def out(self) -> Path:
        """The file the signed head is written to."""
        return self._out

    def publish(self, store: Store) -> SignedHead | None:
        """Sign ``store``'s head and replace the file with it; return it (``None`` if unwritten)."""
        try:
            head = store.head()
        except StoreError as exc:
            self._unwritten(str(exc))
            return None
        signed = sign_head(self._key, head.seq, head.hash)
        partial = self._out.with_name(f".{self._out.name}.partial")
        try:
            partial.write_text(signed.to_json(), encoding="ascii")
            os.replace(partial, self._out)
        except OSError as exc:
            self._unwritten(str(exc.strerror))
            return None
        return signed

    def _unwritten(self, error: str) -> None:
        _log.warning("signed head not written", extra={"path": str(self._out), "error": error})
