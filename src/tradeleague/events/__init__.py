"""Events: the immutable facts of the log, every built-in kind, and its payload schema.

- `base`: the `Event` class, `canonical_json` and `utc_iso` (C-4, C-11).
- `schema`: the registry of payload schemas and the pure `check_payload`/`describe`.
- `common`: the kinds shared by formats (`EventKind`) and the payloads written
  alike everywhere (``AccountOpened``, the one ``ModelCalled`` shape).
- `weights`, `direction`, `scenario`, `thesis`: each format's own kinds and payloads.

Each kind's name is written once, in one of these modules; every writer and
reader uses the constants.
"""

from __future__ import annotations

from tradeleague.events import direction, host, scenario, thesis, weights
from tradeleague.events.base import Event, canonical_json, utc_iso
from tradeleague.events.common import (
    MODEL_CALLED_VERSION,
    EventKind,
    model_called_payload,
    model_called_record,
    upcast_model_called,
)
from tradeleague.events.schema import (
    COMMON,
    Field,
    JsonType,
    PayloadSchema,
    check_events,
    check_payload,
    describe,
    registered_kinds,
    schema_of,
    upcast,
)

__all__ = [
    "COMMON",
    "MODEL_CALLED_VERSION",
    "Event",
    "EventKind",
    "Field",
    "JsonType",
    "PayloadSchema",
    "canonical_json",
    "check_events",
    "check_payload",
    "describe",
    "direction",
    "host",
    "model_called_payload",
    "model_called_record",
    "registered_kinds",
    "scenario",
    "schema_of",
    "thesis",
    "upcast",
    "upcast_model_called",
    "utc_iso",
    "weights",
]
