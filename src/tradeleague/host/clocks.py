"""Which clock a stream was recorded under, for ``tradeleague status`` (issue 25, issue 30).

A host (or a replay) under the replay clock writes each event with an id derived
from its place in its stream and its replay time (`Store.deriving_ids`); live
events have new ids. ``status`` reads a stream's last event to know its clock:
a replayed stream's "now" is its last event's time, so its next slot is the one
after what it played in replay time, never a wall-clock slot it will not play.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from tradeleague.store import Store

__all__ = ["LIVE", "REPLAY", "status_clock"]

LIVE: Final = "live"
REPLAY: Final = "replay"


def status_clock(store: Store, stream: str, now: datetime) -> tuple[datetime, str]:
    """Return the instant ``stream``'s next slot is reckoned from, and its clock's name.

    Under the replay clock: the time of the stream's last event, ``replay``;
    live (or an empty stream): ``now``, ``live``.
    """
    last = store.replayed(stream)
    if last is None:
        return now, LIVE
    return last.event.occurred_at, REPLAY
