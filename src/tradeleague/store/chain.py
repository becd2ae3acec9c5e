"""The hash chain over the event log (SPEC C-4, DESIGN principle 4).

Each stored event carries ``hash = sha256(prev_hash || canonical content)``
where ``prev_hash`` is the previous event's hash as 64 lowercase hex
characters (`GENESIS_HASH` before the first event) and the content is the
canonical JSON (`tradeleague.events.canonical_json`) of::

    {"id", "kind", "occurred_at", "payload", "seq", "stream"}

both encoded as UTF-8. Changing any field of any stored event, reordering,
inserting or removing one changes every hash after it, so ``verify`` finds it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

from tradeleague.events import Event, canonical_json

__all__ = ["GENESIS_HASH", "StoredEvent", "chain_hash"]

GENESIS_HASH: Final = "0" * 64
"""The ``prev_hash`` of the first event in a log."""


def chain_hash(prev_hash: str, seq: int, event: Event) -> str:
    """Return the hash of ``event`` stored at ``seq`` after an event hashed ``prev_hash``.

    Parameters
    ----------
    prev_hash
        The previous event's hash (hex), or `GENESIS_HASH`.
    seq
        The event's global sequence number, from 1.
    event
        The event's envelope and payload.
    """
    content = event.content()
    content["seq"] = seq
    digest = hashlib.sha256(prev_hash.encode("ascii"))
    digest.update(canonical_json(content).encode("utf-8"))
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as the log holds it: its place in the chain and its hashes.

    Attributes
    ----------
    seq
        The global sequence number, 1, 2, 3... with no gaps.
    event
        The event itself.
    prev_hash
        The hash of the event at ``seq - 1`` (`GENESIS_HASH` for the first).
    hash
        ``chain_hash(prev_hash, seq, event)``.
    """

    seq: int
    event: Event
    prev_hash: str
    hash: str
