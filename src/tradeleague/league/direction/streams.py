"""The arenas a store holds: every stream whose first event starts a direction season."""

from __future__ import annotations

from tradeleague.events import EventKind
from tradeleague.formats.direction.preset import FORMAT
from tradeleague.store import Store

__all__ = ["found_arenas"]


def found_arenas(store: Store) -> dict[str, str]:
    """Return every arena a store holds, in the order they started: stream -> its first season.

    An arena is a stream of no format's ``KIND/ID`` form whose first event starts
    a direction season (the demo's ``demo-direction-...`` is one).
    """
    started: dict[str, tuple[int, str]] = {}
    for stream in store.streams():
        if "/" in stream:
            continue
        first = next(store.events(stream, batch=1), None)
        if first is None or first.event.kind != EventKind.SEASON_STARTED:
            continue
        payload = first.event.payload
        if payload.get("format") == FORMAT:
            started[stream] = (first.seq, str(payload.get("season", "")))
    return {s: started[s][1] for s in sorted(started, key=lambda s: started[s][0])}
