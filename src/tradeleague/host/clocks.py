"""Which clock a stream was recorded under, for ``tradeleague status`` (issue 25, issue 30).

A host (or a replay) under the replay clock writes each event with an id derived
from its place in its stream and its replay time (`Store.deriving_ids`); live
events have new ids. ``status`` reads a stream's last event to know its clock:
a replayed stream's next slot is the one after the last it played, in replay
time, never a wall-clock slot its replay will not play.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from tradeleague.store import Store

__all__ = ["LIVE", "REPLAY", "status_clock"]

LIVE: Final = "live"
REPLAY: Final = "replay"


def status_clock(
    store: Store, stream: str, now: datetime, last: datetime | None
) -> tuple[datetime, str]:
    """Return the instant after which ``stream``'s next slot comes, and its clock's name.

    ``last`` is the last slot the stream played. Under the replay clock the
    next slot is the first after ``last`` (the replay stopped there; with no
    slot played, after the stream's last event), ``replay``; live (or an empty
    stream), the first after ``now`` and ``last``, ``live``.
    """
    replayed = store.replayed(stream)
    if replayed is None:
        return (now if last is None else max(now, last)), LIVE
    return (replayed.event.occurred_at if last is None else last), REPLAY
