"""A read model kept in memory and caught up from the last seq it saw, on each read.

Pages and JSON routes fold a stream's events into what they show. Folding the
whole stream on every request costs time and memory in proportion to the
season; a `StreamFold` keeps its state and, on each read, applies only the
events appended since (one small indexed query), so a read costs what changed.
Each read holds the fold's lock while it catches up and while the caller builds
its payload from the state, so a payload never sees a half-applied event; the
lock is per fold, reads of different streams run side by side.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from tradeleague.store.chain import StoredEvent
from tradeleague.store.event_store import Store

__all__ = ["StreamFold"]

S = TypeVar("S")


class StreamFold(Generic[S]):
    """One stream's (or the whole log's) fold, cached and updated incrementally.

    Parameters
    ----------
    stream
        The stream folded; ``None`` folds every event of the log.
    initial
        Makes the empty state.
    apply
        Folds one stored event into the state (in place).
    """

    def __init__(
        self,
        stream: str | None,
        initial: Callable[[], S],
        apply: Callable[[S, StoredEvent], None],
    ) -> None:
        self.stream = stream
        self._initial = initial
        self._apply = apply
        self._state = initial()
        self._last = 0
        self._lock = threading.Lock()

    @property
    def last_seq(self) -> int:
        """Return the seq of the last event folded (0 before any)."""
        return self._last

    @contextmanager
    def current(self, store: Store) -> Iterator[S]:
        """Catch up with ``store`` and yield the state, locked until the block ends.

        A log that is behind the fold (another database at the same address)
        restarts it from the beginning; an event the fold cannot apply leaves it
        empty, to be rebuilt by the next read, and is raised.
        """
        with self._lock:
            if store.head().seq < self._last:
                self._reset()
            try:
                for stored in store.events(self.stream, after_seq=self._last):
                    self._apply(self._state, stored)
                    self._last = stored.seq
            except BaseException:
                self._reset()
                raise
            yield self._state

    def _reset(self) -> None:
        self._state = self._initial()
        self._last = 0
