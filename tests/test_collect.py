"""Replays and refreshes collect garbage less often, and give the process its thresholds back."""

from __future__ import annotations

import asyncio
import gc
import threading

from tradeleague.collect import REPLAY_THRESHOLD, collecting_less, fewer_collections


def test_the_threshold_is_raised_inside_and_restored_after_the_last_block() -> None:
    """Nested blocks share the setting; the thresholds before the first come back after."""
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with fewer_collections():
            assert gc.get_threshold() == (REPLAY_THRESHOLD, 10, 10)
            with fewer_collections():
                assert gc.get_threshold() == (REPLAY_THRESHOLD, 10, 10)
            assert gc.get_threshold() == (REPLAY_THRESHOLD, 10, 10)  # the outer block still runs
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_a_higher_threshold_is_kept_and_a_failing_block_restores() -> None:
    """A process that collects less already keeps its own; an error inside still restores."""
    before = gc.get_threshold()
    try:
        gc.set_threshold(REPLAY_THRESHOLD * 2, 5, 5)
        with fewer_collections():
            assert gc.get_threshold() == (REPLAY_THRESHOLD * 2, 5, 5)
        gc.set_threshold(700, 10, 10)
        try:
            with fewer_collections():
                raise RuntimeError("a replay that fails")
        except RuntimeError:
            pass
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_replays_in_threads_at_once_restore_once_both_end() -> None:
    """Two replays in two threads: the thresholds come back only after both have ended."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    inside, release = threading.Barrier(3), threading.Event()

    @collecting_less
    async def replay() -> int:
        inside.wait()
        release.wait()
        return gc.get_threshold()[0]

    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(asyncio.run(replay()))) for _ in "ab"]
    try:
        for t in threads:
            t.start()
        inside.wait()
        assert gc.get_threshold()[0] == REPLAY_THRESHOLD
        release.set()
        for t in threads:
            t.join()
        assert got == [REPLAY_THRESHOLD, REPLAY_THRESHOLD]
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)
