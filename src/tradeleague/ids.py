"""Identifiers, each its own type; sortable ULIDs, new or derived for replays; one naming rule.

The naming rule: wherever a thing with an id and a name is asked for (a
weights agent by the API, the pages or the CLI), either is accepted;
`resolve_name` turns the reference into the id, and a name that fits more than
one is refused with ``ambiguous_name`` listing the candidates' ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Final, NewType

from ulid import ULID

from tradeleague.errors import ServiceError

__all__ = [
    "AgentId",
    "EventId",
    "RoundId",
    "RunId",
    "SeasonId",
    "Symbol",
    "derived_id",
    "new_id",
    "resolve_name",
]

AgentId = NewType("AgentId", str)
SeasonId = NewType("SeasonId", str)
RoundId = NewType("RoundId", str)
RunId = NewType("RunId", str)
EventId = NewType("EventId", str)
Symbol = NewType("Symbol", str)

_MAX_MS: Final = (1 << 48) - 1
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MS: Final = timedelta(milliseconds=1)


def new_id() -> str:
    """Return a new lexicographically sortable ULID string (the shell's use only)."""
    return str(ULID())


def derived_id(stream: str, position: int, moment: datetime) -> str:
    """Return the ULID of the event at ``position`` of ``stream``, stamped ``moment``.

    The same inputs give the same id on every machine, so a replay writes the
    same events (and ends on the same chain head) each time it is run. The
    48-bit time part is ``moment`` in Unix milliseconds (clamped to what a ULID
    holds), so derived ids sort by time like new ones; the 80-bit random part
    is a BLAKE2b hash of the stream and the position, so two events of one log
    never share an id.

    Parameters
    ----------
    stream
        The event's stream.
    position
        How many events of ``stream`` come before it (0 for the first).
    moment
        When it happened, timezone-aware.

    Raises
    ------
    ValueError
        If ``position`` is negative or ``moment`` is naive.
    """
    if position < 0:
        raise ValueError(f"position {position} is negative")
    if moment.tzinfo is None:
        raise ValueError("moment is naive; give it a timezone")
    ms = min(max((moment - _EPOCH) // _MS, 0), _MAX_MS)
    digest = hashlib.blake2b(f"{stream}\n{position}".encode(), digest_size=10).digest()
    return _ulid_text((ms << 80) | int.from_bytes(digest, "big"))


_CROCKFORD: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_PAIRS: Final = tuple(a + b for a in _CROCKFORD for b in _CROCKFORD)


def _ulid_text(value: int) -> str:
    """Return the 26 Crockford base-32 characters of a 128-bit ULID, as ``str(ULID)`` does.

    Ten bits (two characters) at a time, 130 bits in all: the first character
    holds the top three bits. A test holds it equal to the ``ulid`` package.
    """
    pairs = _PAIRS
    return "".join([pairs[(value >> shift) & 1023] for shift in range(120, -1, -10)])


def resolve_name(ref: str, known: Iterable[tuple[str, str]], what: str) -> str | None:
    """Return the id ``ref`` stands for among ``known`` ``(id, name)`` pairs, or None.

    An id is taken as itself (ids win over names); otherwise a name that one
    of them has gives that one's id; a name that none has gives None (the
    caller says what is missing, in its own words).

    Raises
    ------
    ServiceError
        409 ``ambiguous_name`` when several ``what`` have that name; its
        ``candidates`` list each one's id and name, to ask again by id.
    """
    pairs = list(known)
    if any(ident == ref for ident, _ in pairs):
        return ref
    fits = sorted((ident, name) for ident, name in pairs if name == ref)
    if len(fits) > 1:
        ids = ", ".join(ident for ident, _ in fits)
        raise ServiceError(
            409,
            "ambiguous_name",
            f"{len(fits)} {what}s are named {ref!r}; give one by its id: {ids}.",
            {"candidates": [{"id": ident, "name": name} for ident, name in fits]},
        )
    return fits[0][0] if fits else None
