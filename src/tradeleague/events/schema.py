"""Payload schemas: every event kind's fields, their JSON types, and a pure check.

Each built-in kind registers one `PayloadSchema` per format that writes it
(``common`` where every format writes the same payload): its schema version
and its fields, each with the JSON types it may hold and whether it is
required. A payload is a closed record: a field its schema does not declare is
a problem, so a writer that adds a field must declare it here first.

Kinds nobody registered are allowed (third parties may log their own facts);
`check_payload` finds no problem in them. An *upcaster* turns an older shape of
a kind's payload into the current one; `check_payload` and readers apply it
first, so stores written before a shape changed still read and verify.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from tradeleague.events.base import Event

__all__ = [
    "COMMON",
    "Field",
    "JsonType",
    "PayloadSchema",
    "check_events",
    "check_payload",
    "describe",
    "register",
    "register_upcaster",
    "registered_kinds",
    "schema_of",
    "upcast",
]

COMMON: Final = "common"
"""The format name of a payload every format writes alike."""


class JsonType(enum.StrEnum):
    """The JSON type of a payload field (canonical JSON has no floats)."""

    STRING = "string"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    OBJECT = "object"
    ARRAY = "array"
    NULL = "null"


STR: Final = JsonType.STRING
INT: Final = JsonType.INTEGER
BOOL: Final = JsonType.BOOLEAN
OBJ: Final = JsonType.OBJECT
ARR: Final = JsonType.ARRAY
NULL: Final = JsonType.NULL


def json_type(value: object) -> JsonType:
    """Return the JSON type of ``value`` (a value of a canonical-JSON payload).

    Raises
    ------
    TypeError
        For a value canonical JSON cannot hold.
    """
    if value is None:
        return JsonType.NULL
    if isinstance(value, bool):
        return JsonType.BOOLEAN
    if isinstance(value, int):
        return JsonType.INTEGER
    if isinstance(value, str):
        return JsonType.STRING
    if isinstance(value, list):
        return JsonType.ARRAY
    if isinstance(value, Mapping):
        return JsonType.OBJECT
    raise TypeError(f"{type(value).__name__} is not a JSON value of an event")


@dataclass(frozen=True, slots=True)
class Field:
    """One payload field: its name, the JSON types it may hold, whether it must be there."""

    name: str
    types: tuple[JsonType, ...]
    required: bool = True
    doc: str = ""

    def describe(self) -> dict[str, object]:
        """Return the field as JSON values."""
        return {
            "name": self.name,
            "types": [t.value for t in self.types],
            "required": self.required,
            "doc": self.doc,
        }


def req(name: str, *types: JsonType, doc: str = "") -> Field:
    """Return a required field of ``types``."""
    return Field(name, types, True, doc)


def opt(name: str, *types: JsonType, doc: str = "") -> Field:
    """Return an optional field of ``types``."""
    return Field(name, types, False, doc)


@dataclass(frozen=True, slots=True)
class PayloadSchema:
    """The payload of one kind as one format writes it."""

    kind: str
    format: str
    version: int
    fields: tuple[Field, ...]
    doc: str = ""

    def problems(self, payload: Mapping[str, object]) -> list[str]:
        """Return what is wrong with ``payload`` against this schema (empty when nothing is)."""
        out: list[str] = []
        declared = {f.name: f for f in self.fields}
        for f in self.fields:
            if f.name not in payload:
                if f.required:
                    out.append(f"{self.kind}: missing field {f.name!r}")
                continue
            try:
                found = json_type(payload[f.name])
            except TypeError as exc:
                out.append(f"{self.kind}.{f.name}: {exc}")
                continue
            if found not in f.types:
                wanted = " or ".join(t.value for t in f.types)
                out.append(f"{self.kind}.{f.name}: {found.value}, expected {wanted}")
        for name in sorted(set(payload) - set(declared)):
            out.append(f"{self.kind}: undeclared field {name!r}")
        return out

    def describe(self) -> dict[str, object]:
        """Return the schema as JSON values."""
        return {
            "kind": self.kind,
            "format": self.format,
            "version": self.version,
            "doc": self.doc,
            "fields": [f.describe() for f in self.fields],
        }


Upcaster = Callable[[Mapping[str, object]], dict[str, object]]

_SCHEMAS: dict[str, dict[str, PayloadSchema]] = {}
_UPCASTERS: dict[str, Upcaster] = {}


def register(
    kind: str, fmt: str, fields: tuple[Field, ...], *, version: int = 1, doc: str = ""
) -> PayloadSchema:
    """Register the payload schema of ``kind`` as format ``fmt`` writes it.

    Raises
    ------
    ValueError
        If ``kind`` already has a schema for ``fmt``, or a field is declared twice.
    """
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise ValueError(f"{kind}/{fmt}: a field is declared twice")
    variants = _SCHEMAS.setdefault(kind, {})
    if fmt in variants:
        raise ValueError(f"{kind} already has a payload schema for {fmt}")
    schema = PayloadSchema(kind, fmt, version, fields, doc)
    variants[fmt] = schema
    return schema


def register_upcaster(kind: str, upcaster: Upcaster) -> None:
    """Register the function that turns an older payload shape of ``kind`` into the current one."""
    if kind in _UPCASTERS:
        raise ValueError(f"{kind} already has an upcaster")
    _UPCASTERS[kind] = upcaster


def upcast(kind: str, payload: Mapping[str, object]) -> dict[str, object]:
    """Return ``payload`` in the current shape of ``kind`` (a copy; unchanged if current).

    Raises
    ------
    ValueError
        If the payload is in no shape the upcaster knows.
    """
    upcaster = _UPCASTERS.get(kind)
    return dict(payload) if upcaster is None else upcaster(payload)


def registered_kinds() -> tuple[str, ...]:
    """Return every kind with a registered schema, sorted."""
    return tuple(sorted(_SCHEMAS))


def schema_of(kind: str, fmt: str) -> PayloadSchema | None:
    """Return the schema of ``kind`` as ``fmt`` writes it (or the common one), if any."""
    variants = _SCHEMAS.get(kind, {})
    return variants.get(fmt) or variants.get(COMMON)


def check_payload(kind: str, payload: Mapping[str, object], fmt: str | None = None) -> list[str]:
    """Return the problems of ``payload`` as an event of ``kind`` (empty when it is valid).

    Parameters
    ----------
    kind
        The event's kind; a kind without a registered schema has no problems.
    payload
        The event's payload, upcast to the kind's current shape first.
    fmt
        The format that wrote it (``weights``, ``direction``, ``scenario``); by
        default the payload is valid if any format's schema of ``kind`` accepts it.
    """
    variants = _SCHEMAS.get(kind)
    if variants is None:
        return []
    try:
        current = upcast(kind, payload)
    except ValueError as exc:
        return [f"{kind}: {exc}"]
    if fmt is not None:
        schema = schema_of(kind, fmt)
        if schema is None:
            return [f"{kind}: no payload schema for the {fmt} format"]
        return schema.problems(current)
    found: list[str] = []
    for schema in variants.values():
        problems = schema.problems(current)
        if not problems:
            return []
        found.extend(f"[{schema.format}] {p}" for p in problems)
    return found


def check_events(events: Iterable[Event], fmt: str | None = None) -> list[str]:
    """Return the problems of every event in ``events``, each prefixed with its kind and id."""
    return [
        f"{e.id}: {problem}" for e in events for problem in check_payload(e.kind, e.payload, fmt)
    ]


def describe(kind: str | None = None) -> list[dict[str, object]]:
    """Return the registered schemas (of ``kind``, or every one) as JSON values."""
    kinds = registered_kinds() if kind is None else (kind,)
    return [schema.describe() for k in kinds for _, schema in sorted(_SCHEMAS.get(k, {}).items())]
