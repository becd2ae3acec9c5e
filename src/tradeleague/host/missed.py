"""The slots the host recorded as missed, in ``host/<format>`` (``events/host.py``).

The runner reads them so a missed slot is never played late; each format's
part of ``tradeleague status`` lists those of a season.
"""

from __future__ import annotations

from tradeleague.events.host import SLOT_MISSED, host_stream
from tradeleague.store import Store

__all__ = ["missed_in", "missed_slots"]


def missed_slots(store: Store, fmt: str) -> dict[str, tuple[str, str]]:
    """Return ``fmt``'s recorded missed slots: slot time (ISO) -> (season, reason)."""
    return {
        str(s.event.payload["slot"]): (
            str(s.event.payload["season"]),
            str(s.event.payload["reason"]),
        )
        for s in store.events(host_stream(fmt))
        if s.event.kind == SLOT_MISSED
    }


def missed_in(store: Store, fmt: str, season: str) -> list[dict[str, str]]:
    """Return ``season``'s missed slots, in time order, as ``status --json`` lists them."""
    return [
        {"slot": slot, "reason": reason}
        for slot, (where, reason) in sorted(missed_slots(store, fmt).items())
        if where == season
    ]
