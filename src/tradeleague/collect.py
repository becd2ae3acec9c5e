"""Fewer garbage collections while a season is replayed or projections are refreshed.

A replay allocates millions of small objects (payload dicts, events, books)
that reference counting frees; almost none form cycles. Python's cyclic
collector still runs a young-generation pass every 700 net allocations, and
each older pass walks a heap that grows with the season: a fifth of a
1,000-agent weights replay went to the collector (`bench/weights_replay.py`,
20% faster with the threshold below). `fewer_collections` raises the
youngest generation's threshold for as long as a replay (`collecting_less`
on each format's replay) or a projection refresh runs, and puts the
process's own thresholds back when the last of them ends. Nothing is
left uncollected: cycles are found as before, only in fewer, larger passes.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, Final, ParamSpec, TypeVar

__all__ = ["REPLAY_THRESHOLD", "collecting_less", "fewer_collections"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

REPLAY_THRESHOLD: Final = 50_000
"""Net allocations between young-generation collections during a replay (Python's is 700)."""

_LOCK: Final = threading.Lock()


class _Held:
    """How many blocks are open, and the thresholds to restore after the last."""

    depth = 0
    saved: tuple[int, ...] = ()


_HELD: Final = _Held()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect the young generation every `REPLAY_THRESHOLD` allocations inside the block.

    Nested or concurrent blocks share one setting; the thresholds in force
    before the first block are restored when the last one ends. A process
    whose threshold is already higher keeps its own.
    """
    with _LOCK:
        if _HELD.depth == 0:
            _HELD.saved = gc.get_threshold()
            gc.set_threshold(max(_HELD.saved[0], REPLAY_THRESHOLD), *_HELD.saved[1:])
        _HELD.depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _HELD.depth -= 1
            if _HELD.depth == 0:
                gc.set_threshold(*_HELD.saved)


def collecting_less(
    replay: Callable[_P, Coroutine[Any, Any, _T]],
) -> Callable[_P, Coroutine[Any, Any, _T]]:
    """Run the coroutine function ``replay`` inside `fewer_collections`."""

    @functools.wraps(replay)
    async def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        with fewer_collections():
            return await replay(*args, **kwargs)

    return run
