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
import json
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Final

from tradeleague.events import Event, utc_iso

__all__ = ["GENESIS_HASH", "StoredEvent", "chain_hash", "content_json"]

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
    digest = hashlib.sha256(prev_hash.encode("ascii"))
    digest.update(content_json(seq, event).encode("utf-8"))
    return digest.hexdigest()


def content_json(seq: int, event: Event) -> str:
    """Return ``canonical_json`` of the event's content with its ``seq``, as the chain hashes it.

    Assembled from the event's own canonical payload text instead of parsing
    and writing the payload again: the keys in sorted order, the other values
    written as ``canonical_json`` writes them (a test holds the two equal).
    """
    # The id (a ULID), the kind (PascalCase letters and digits; both checked when the
    # event is made) and the UTC time (digits and punctuation) need no escaping: each
    # is its own JSON string between quotes. A stream may need escapes; a log holds
    # few streams, so their texts are kept.
    return (
        f'{{"id":"{event.id}","kind":"{event.kind}",'
        f'"occurred_at":"{_time_text(event.occurred_at)}",'
        f'"payload":{event.payload_json},"seq":{int(seq)},"stream":{_text(event.stream)}}}'
    )


@lru_cache(maxsize=1024)
def _text(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


@lru_cache(maxsize=4096)
def _time_text(moment: datetime) -> str:
    # a replay stamps many events with one moment; equal aware datetimes are one UTC instant
    return utc_iso(moment)


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
