"""Events: immutable past-tense facts, and the canonical JSON they are hashed in.

Every state change is an event appended to the log (DESIGN principle 4, SPEC
C-4): a price read, a model call (C-5), a fill, a skip. An event names its
*stream* (the aggregate it belongs to, such as a season id), its *kind* (a
past-tense fact such as ``OrderFilled``), the UTC moment it happened (taken by
the shell from its ``Clock``, C-11), a JSON payload and a sortable ULID.

The payload is kept as canonical JSON text, so an ``Event`` cannot be changed
after it is made and hashes the same on every machine: keys sorted by code
point, no insignificant white space, UTF-8. Only ``None``, ``bool``, ``int``,
``str``, lists and string-keyed dicts are allowed; a ``float`` is refused
because binary floats carry no exact money (W-EXE-7). Amounts travel as
decimal strings of micro-units.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from datetime import datetime
from typing import Final

from tradeleague.clock import Clock, ensure_utc
from tradeleague.ids import EventId, new_id

__all__ = [
    "Event",
    "canonical_json",
    "utc_iso",
]

_KIND_RE: Final = re.compile(r"[A-Z][A-Za-z0-9]{0,99}")
_ULID_RE: Final = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
_MAX_STREAM: Final = 200
_ID_LOCK: Final = threading.Lock()


def _check_names(stream: str, kind: str) -> None:
    if not stream or len(stream) > _MAX_STREAM or not stream.isprintable():
        raise ValueError(f"stream {stream!r}: 1 to {_MAX_STREAM} printable characters")
    if _KIND_RE.fullmatch(kind) is None:
        raise ValueError(f"kind {kind!r}: a PascalCase past-tense name")


def _check_json(value: object, path: str) -> None:
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{path}: string is not valid Unicode (lone surrogate)") from None
        return
    if isinstance(value, float):
        raise TypeError(f"{path}: float {value!r} in an event; use a decimal string or an int")
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path}: key {key!r} is not a string")
            _check_json(item, f"{path}.{key}")
        return
    raise TypeError(f"{path}: {type(value).__name__} is not allowed in canonical JSON")


def _plain_json(value: object) -> bool:
    """Tell, without recursion or path strings, that ``value`` holds only what is allowed.

    Exact types only (``str``, ``int``, ``bool``, ``None``, ``list``, ``dict`` with
    ``str`` keys) and strings that encode as UTF-8: the common case, about ten
    times cheaper than ``_check_json``. ``False`` sends the value to
    ``_check_json``, which accepts subclasses too and words the error.
    """
    stack = [value]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            if not item.isascii():  # type: ignore[attr-defined]
                try:
                    item.encode("utf-8")  # type: ignore[attr-defined]
                except UnicodeEncodeError:
                    return False
        elif kind is dict:
            for key, inner in item.items():  # type: ignore[attr-defined]
                if type(key) is not str:
                    return False
                push(inner)
        elif kind is list:
            extend(item)  # type: ignore[arg-type]
        elif not (item is None or kind is int or kind is bool):
            return False
    return True


def canonical_json(value: object) -> str:
    """Return the canonical JSON text of ``value``: sorted keys, no spaces, UTF-8 safe.

    Parameters
    ----------
    value
        ``None``, ``bool``, ``int``, ``str``, or lists and string-keyed dicts of these.

    Raises
    ------
    TypeError
        For a ``float`` anywhere in ``value``, a non-string key, or another type
        (tuples, sets, ``Decimal``, ``datetime``...).
    ValueError
        For a string that cannot be encoded as UTF-8.
    """
    if not _plain_json(value):
        _check_json(value, "$")
    return _encode(value)


# made once: json.dumps with arguments builds an encoder on every call
_encode: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


class _NotPlain(Exception):
    """A float in encoded text (refused by canonical JSON)."""


def _refuse(_text: str) -> object:
    raise _NotPlain


_decode: Final = json.JSONDecoder(parse_float=_refuse, parse_constant=_refuse).decode


def _encoded(payload: dict[str, object]) -> tuple[str, dict[str, object] | None]:
    """Return `canonical_json` of ``payload`` and the payload decoded from that text.

    Checked by the round trip, in C, instead of `_plain_json`'s walk: the text
    decodes with no float (a float always writes a fraction or an exponent, or
    the encoder refuses it), to a value equal to ``payload`` (a tuple, or a key
    the encoder wrote as a string from an int, a bool or ``None``, decodes to
    something unequal), and encodes as UTF-8 (the encoder writes every string
    unescaped, so a lone surrogate is in the text). The decoded value is the
    event's `payload_view`, which every fold reads: the decode is not paid
    twice. Anything else goes through `canonical_json`, which refuses it with
    its own words (a test holds the two paths to the same result).
    """
    try:
        text = _encode(payload)
        parsed = _decode(text)
        if parsed == payload and (text.isascii() or text.encode("utf-8")):
            return text, parsed
    except (TypeError, ValueError, RecursionError, _NotPlain):
        pass
    return canonical_json(payload), None


def utc_iso(moment: datetime) -> str:
    """Return ``moment`` as canonical UTC text, ``2026-01-05T15:00:00.000000Z``.

    Raises
    ------
    ValueError
        If ``moment`` is naive (C-11: every time carries UTC).
    """
    return ensure_utc(moment).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Event:
    """One immutable past-tense fact, the unit of the append-only log (SPEC C-4).

    Parameters
    ----------
    stream
        The aggregate it belongs to (a season, competition or run id): 1 to 200
        printable characters.
    kind
        A past-tense ``PascalCase`` name, such as ``OrderFilled``.
    payload
        A string-keyed dict of JSON values; floats are refused (see `canonical_json`).
    occurred_at
        When it happened, timezone-aware (stored in UTC).
    id
        A ULID; by default a new one, drawn when the id is first read (a store
        that derives ids replaces it unread, so a replay draws none).

    Raises
    ------
    ValueError, TypeError
        If a field is malformed; an event is checked once, when it is made.
    """

    __slots__ = ("_id", "_kind", "_occurred_at", "_parsed", "_payload_json", "_stream")
    _id: EventId | None
    _kind: str
    _occurred_at: datetime
    _parsed: dict[str, object] | None
    _payload_json: str
    _stream: str

    def __init__(
        self,
        stream: str,
        kind: str,
        payload: Mapping[str, object],
        occurred_at: datetime,
        id: str | None = None,
    ) -> None:
        kind = str(kind)
        _check_names(stream, kind)
        if not isinstance(payload, Mapping):
            raise TypeError(f"payload must be a mapping, not {type(payload).__name__}")
        if id is not None and _ULID_RE.fullmatch(id) is None:
            raise ValueError(f"event id {id!r} is not a ULID")
        # set through object.__setattr__: the immutability guard costs a lookup per field
        init = object.__setattr__
        init(self, "_stream", stream)
        init(self, "_kind", kind)
        text, parsed = _encoded(dict(payload))
        init(self, "_payload_json", text)
        init(self, "_occurred_at", ensure_utc(occurred_at))
        init(self, "_id", None if id is None else EventId(id))
        init(self, "_parsed", parsed)

    @classmethod
    def _canonical(
        cls,
        stream: str,
        kind: str,
        payload_json: str,
        occurred_at: datetime,
        id: str,
        parsed: dict[str, object] | None = None,
    ) -> Event:
        """Return an event whose payload text is known canonical (private to the store).

        The stream, kind and id are checked as ``__init__`` checks them; the
        payload is not: ``payload_json`` must equal ``canonical_json`` of the
        payload it decodes to (``parsed``, when given), as for an event read
        back from the log and proven canonical there (`store.rows`).

        Raises
        ------
        ValueError
            If the stream, kind or id is malformed.
        """
        _check_names(stream, kind)
        if _ULID_RE.fullmatch(id) is None:
            raise ValueError(f"event id {id!r} is not a ULID")
        event = object.__new__(cls)
        init = object.__setattr__
        init(event, "_stream", stream)
        init(event, "_kind", kind)
        init(event, "_payload_json", payload_json)
        init(event, "_occurred_at", ensure_utc(occurred_at))
        init(event, "_id", EventId(id))
        init(event, "_parsed", parsed)
        return event

    @classmethod
    def now(cls, clock: Clock, stream: str, kind: str, payload: Mapping[str, object]) -> Event:
        """Return a new event that happened at ``clock.now()``."""
        return cls(stream, kind, payload, clock.now())

    def with_id(self, id: str) -> Event:
        """Return this event under the ULID ``id``, every other field the same.

        Raises
        ------
        ValueError
            If ``id`` is not a ULID.
        """
        if _ULID_RE.fullmatch(id) is None:
            raise ValueError(f"event id {id!r} is not a ULID")
        copy = object.__new__(Event)
        init = object.__setattr__
        init(copy, "_stream", self._stream)
        init(copy, "_kind", self._kind)
        init(copy, "_payload_json", self._payload_json)
        init(copy, "_occurred_at", self._occurred_at)
        init(copy, "_id", EventId(id))
        init(copy, "_parsed", self._parsed)
        return copy

    @property
    def id(self) -> EventId:
        """Return the event's ULID (a new one is drawn on the first read if none was given)."""
        found = self._id
        if found is None:
            with _ID_LOCK:  # two threads reading a new event's id at once see one id
                found = self._id
                if found is None:
                    found = EventId(new_id())
                    object.__setattr__(self, "_id", found)
        return found

    @property
    def stream(self) -> str:
        """Return the aggregate the event belongs to."""
        return self._stream

    @property
    def kind(self) -> str:
        """Return the past-tense kind name."""
        return self._kind

    @property
    def occurred_at(self) -> datetime:
        """Return when it happened, in UTC."""
        return self._occurred_at

    @property
    def payload_json(self) -> str:
        """Return the payload's canonical JSON text."""
        return self._payload_json

    @property
    def payload(self) -> dict[str, object]:
        """Return a fresh copy of the payload (changing it changes nothing here)."""
        loaded: dict[str, object] = json.loads(self._payload_json)
        return loaded

    @property
    def payload_view(self) -> Mapping[str, object]:
        """Return the payload decoded once and shared: read it, never change it.

        The folds (projections, the season state) read each payload two or
        three times; `payload` decodes a fresh copy on every read. The value
        (nested lists and dicts included) belongs to the event: a caller that
        keeps or changes a part copies it first.
        """
        parsed = self._parsed
        if parsed is None:
            parsed = json.loads(self._payload_json)
            object.__setattr__(self, "_parsed", parsed)
        return parsed

    def content(self) -> dict[str, object]:
        """Return every field as one canonical-JSON-safe dict (what the hash chain covers)."""
        return {
            "id": self.id,
            "stream": self._stream,
            "kind": self._kind,
            "occurred_at": utc_iso(self._occurred_at),
            "payload": self.payload,
        }

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, name):
            raise AttributeError(f"an Event is immutable; cannot set {name}")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[str, str, str, datetime, str]:
        return (self.id, self._stream, self._kind, self._occurred_at, self._payload_json)

    def __repr__(self) -> str:
        return (
            f"Event(stream={self._stream!r}, kind={self._kind!r}, "
            f"payload={self._payload_json}, occurred_at={utc_iso(self._occurred_at)!r}, "
            f"id={self.id!r})"
        )
