"""A store whose appends are timed into the host's metrics (the same store otherwise)."""

from __future__ import annotations

import time
from collections.abc import Iterable

from tradeleague.events import Event
from tradeleague.host.metrics import Metrics
from tradeleague.store import Store, StoredEvent

__all__ = ["TimedStore", "timed"]


class TimedStore(Store):
    """`Store` with every ``append`` observed by ``metrics.appended``."""

    metrics: Metrics

    def append(self, new_events: Iterable[Event]) -> list[StoredEvent]:
        """Append as `Store.append` does, timing it."""
        started = time.perf_counter()
        try:
            return super().append(new_events)
        finally:
            self.metrics.appended(time.perf_counter() - started)

    def deriving_ids(self) -> Store:
        """Return the deriving store, timed too."""
        return timed(super().deriving_ids(), self.metrics)


def timed(store: Store, metrics: Metrics) -> TimedStore:
    """Return ``store`` (sharing its connections and its writer claims) with its appends timed.

    Sharing the claims means closing ``store`` frees every stream this one claimed.
    """
    out = TimedStore(store.engine, store._url, derive_ids=store.derives_ids, writers=store._writers)
    out.metrics = metrics
    return out
