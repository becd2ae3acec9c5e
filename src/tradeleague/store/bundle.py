"""A season's audit bundle on disk: its events as a hash chain, read and checked without a store.

``tradeleague export`` writes a folder; ``tradeleague verify --bundle`` reads it
back with no database (the layout and the checks are in ``docs/audit.md``):

- ``events.jsonl``: one event a line, each the canonical JSON object
  ``{"hash", "id", "kind", "occurred_at", "payload", "prev_hash", "seq",
  "stream"}`` (keys sorted, no white space), a contiguous run of the log's
  chain: every line's ``hash`` is ``chain_hash(prev_hash, seq, event)``
  (`tradeleague.store.chain`) and its ``prev_hash`` the line before's ``hash``.
- ``head.json``: the chain head signed with Ed25519 (`tradeleague.store.signing`),
  the last line's seq and hash.
- ``bundle.json``: the season's id, and what the folder holds.
- ``REPORT.json`` and ``market/`` (the market data the season read, when its
  format keeps it) are checked by the layer that recomputes them
  (`tradeleague.host.bundle`).

This module reads and writes the chain part only; every check raises
`BundleMismatch` with one sentence naming the first line that disagrees.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from tradeleague.errors import ConfigError
from tradeleague.events import Event, utc_iso
from tradeleague.store.chain import StoredEvent, chain_hash
from tradeleague.store.rows import strict_loads
from tradeleague.store.signing import SignedHead, read_signed_head

__all__ = [
    "EVENTS_FILE",
    "HEAD_FILE",
    "MANIFEST_FILE",
    "MARKET_DIR",
    "README_FILE",
    "REPORT_FILE",
    "BundleMismatch",
    "EventMismatch",
    "Manifest",
    "check_head",
    "event_line",
    "read_chain",
    "read_manifest",
    "write_events",
]

EVENTS_FILE: Final = "events.jsonl"
HEAD_FILE: Final = "head.json"
MANIFEST_FILE: Final = "bundle.json"
REPORT_FILE: Final = "REPORT.json"
README_FILE: Final = "README.txt"
MARKET_DIR: Final = "market"

MAX_LINE_BYTES: Final = 16 * 1024 * 1024
"""The longest event line read (a model's recorded answer is far shorter)."""

_MAX_MANIFEST_BYTES: Final = 64 * 1024
_TIME_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
_FIELDS: Final = ("hash", "id", "kind", "occurred_at", "payload", "prev_hash", "seq", "stream")


class BundleMismatch(Exception):
    """Something in a bundle disagrees with what its events and market data give.

    The message is one sentence naming the first place (the event's seq, the
    bar, the report's field).
    """


class EventMismatch(BundleMismatch):
    """An event disagrees with the market data or its own record: ``seq`` names it.

    ``detail`` finishes the sentence "The event at seq N ...". A check run
    on a scratch copy of the bundle's events raises it with the scratch seq;
    the caller restates it at the bundle's own seq.
    """

    def __init__(self, seq: int, detail: str) -> None:
        super().__init__(f"The event at seq {seq} {detail}.")
        self.seq = seq
        self.detail = detail


def event_line(stored: StoredEvent) -> str:
    """Return ``stored`` as one line of ``events.jsonl`` (canonical JSON, no newline)."""
    event = stored.event
    return (
        f'{{"hash":"{stored.hash}","id":"{event.id}","kind":"{event.kind}",'
        f'"occurred_at":"{utc_iso(event.occurred_at)}",'
        f'"payload":{event.payload_json},"prev_hash":"{stored.prev_hash}",'
        f'"seq":{int(stored.seq)},"stream":{json.dumps(event.stream, ensure_ascii=False)}}}'
    )


def write_events(path: Path, events: Iterable[StoredEvent]) -> tuple[int, StoredEvent | None]:
    """Write ``events`` to ``path`` one line each; return how many and the last."""
    count, last = 0, None
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for stored in events:
            handle.write(event_line(stored))
            handle.write("\n")
            count, last = count + 1, stored
    return count, last


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise BundleMismatch(f"The bundle's {path.name} cannot be read: {exc.strerror}.") from None
    with handle:
        number = 0
        while True:
            line = handle.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise BundleMismatch(
                    f"Line {number} of {path.name} is longer than {MAX_LINE_BYTES:,} bytes."
                )
            yield number, line


def _parse_line(raw: bytes, number: int) -> StoredEvent:
    where = f"Line {number} of {EVENTS_FILE}"
    text = raw[:-1] if raw.endswith(b"\n") else raw
    try:
        doc = strict_loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BundleMismatch(f"{where} is not one JSON object.") from None
    if not isinstance(doc, dict) or sorted(doc) != list(_FIELDS):
        raise BundleMismatch(f"{where} does not hold exactly the fields {', '.join(_FIELDS)}.")
    seq, payload = doc["seq"], doc["payload"]
    if type(seq) is not int or seq < 1:
        raise BundleMismatch(f"{where} has no positive seq.")
    named = f"The event at seq {seq} (line {number} of {EVENTS_FILE})"
    try:
        if not isinstance(payload, dict):
            raise TypeError("the payload is not an object")
        at = datetime.strptime(str(doc["occurred_at"]), _TIME_FORMAT).replace(tzinfo=UTC)
        event = Event(str(doc["stream"]), str(doc["kind"]), payload, at, str(doc["id"]))
        stored = StoredEvent(seq, event, str(doc["prev_hash"]), str(doc["hash"]))
    except (TypeError, ValueError):
        raise BundleMismatch(f"{named} is not a well-formed event.") from None
    if event_line(stored).encode("utf-8") != text:
        raise BundleMismatch(f"{named} is not written in canonical form (it was edited).")
    return stored


def read_chain(folder: Path) -> list[StoredEvent]:
    """Read ``events.jsonl`` and check every line's hash and link; return the events.

    Raises
    ------
    BundleMismatch
        At the first line that is malformed, not canonical, out of sequence,
        not linked to the line before, or whose hash is not its content's.
    """
    out: list[StoredEvent] = []
    for number, raw in _lines(folder / EVENTS_FILE):
        stored = _parse_line(raw, number)
        named = f"The event at seq {stored.seq} (line {number} of {EVENTS_FILE})"
        if out and stored.seq != out[-1].seq + 1:
            raise BundleMismatch(f"{named} does not follow seq {out[-1].seq}: the chain has a gap.")
        if out and stored.prev_hash != out[-1].hash:
            raise BundleMismatch(f"{named} does not link to the hash of the event before it.")
        if chain_hash(stored.prev_hash, stored.seq, stored.event) != stored.hash:
            raise BundleMismatch(f"{named} does not match its hash: its content was changed.")
        out.append(stored)
    if not out:
        raise BundleMismatch(f"The bundle's {EVENTS_FILE} holds no event.")
    return out


def check_head(folder: Path, last: StoredEvent, signer: str | None) -> SignedHead:
    """Check ``head.json``: its signature, its signer if pinned, and that it is the last event.

    Raises
    ------
    BundleMismatch
        If the head cannot be read, its signature does not verify, it is signed
        by another key than ``signer``, or it is not ``last``'s seq and hash.
    """
    try:
        head = read_signed_head(folder / HEAD_FILE)
    except ConfigError as exc:
        raise BundleMismatch(str(exc)) from None
    if signer is not None and head.public_key != signer.strip().lower():
        raise BundleMismatch(
            f"The bundle's head is signed by key {head.public_key}, not by the key given."
        )
    if (head.seq, head.hash) != (last.seq, last.hash):
        raise BundleMismatch(
            f"The signed head is {head.seq}:{head.hash}, but the bundle's events end at "
            f"{last.seq}:{last.hash}."
        )
    return head


@dataclass(frozen=True, slots=True)
class Manifest:
    """What ``bundle.json`` says: the season the bundle is of, and its stream when named."""

    season: str
    stream: str | None = None

    def to_json(self) -> str:
        """Return the file's text."""
        body = {
            "v": 1,
            "season": self.season,
            "stream": self.stream,
            "events": EVENTS_FILE,
            "head": HEAD_FILE,
        }
        return json.dumps(body, indent=2, sort_keys=True) + "\n"


def read_manifest(folder: Path) -> Manifest:
    """Read ``bundle.json``.

    Raises
    ------
    BundleMismatch
        If it is missing, too large, or does not name a season.
    """
    path = folder / MANIFEST_FILE
    try:
        data = path.read_bytes()[: _MAX_MANIFEST_BYTES + 1]
        if len(data) > _MAX_MANIFEST_BYTES:
            raise ValueError("too large")
        doc = strict_loads(data.decode("utf-8"))
    except OSError as exc:
        raise BundleMismatch(
            f"The bundle's {MANIFEST_FILE} cannot be read: {exc.strerror}."
        ) from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BundleMismatch(f"The bundle's {MANIFEST_FILE} is not a small JSON object.") from None
    season = doc.get("season") if isinstance(doc, dict) else None
    if not isinstance(season, str) or not season or len(season) > 200:
        raise BundleMismatch(f"The bundle's {MANIFEST_FILE} names no season.")
    stream = doc.get("stream") if isinstance(doc, dict) else None
    if stream is not None and (not isinstance(stream, str) or not 0 < len(stream) <= 200):
        raise BundleMismatch(f"The bundle's {MANIFEST_FILE} names a malformed stream.")
    return Manifest(season, stream)
