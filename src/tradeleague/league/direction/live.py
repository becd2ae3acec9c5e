"""The live driver: rounds on the wall clock, one after another, around the clock (SPEC D-RND-1).

``run_live`` starts every round at its own open on the round grid as a
separate task, so a round still settling (up to the grace after its expiry,
which is the next round's open) never delays the next open: rounds overlap
by design, each with its own event buffer (see ``arena``). A round that
raises (``ReplayMissed``, say; every other failure is already absorbed by the
arena as a void round) stops the driver: the rounds in flight are cancelled
and the error propagates.

Restarted on a stream that already holds events (after a crash, say), the
arena first takes up its state from them (``DirectionArena.resume``): the
season, its round numbering and every balance go on, and a round cut
mid-way is voided and finished, once, before the next round opens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from tradeleague.formats.direction.timing import round_opens
from tradeleague.league.direction.arena import DirectionArena

__all__ = ["next_open", "run_live"]


def next_open(arena: DirectionArena, moment: datetime) -> datetime:
    """Return the first round open at or after ``moment`` on the arena's grid."""
    step = arena.preset.round_length
    (first,) = round_opens(moment, moment + step, arena.preset)
    return first


async def run_live(
    arena: DirectionArena,
    *,
    until: datetime | None,
    start: datetime | None = None,
    on_round: Callable[[str], None] | None = None,
) -> list[str]:
    """Run every round opening in ``[start, until)`` on the arena's clock; return their ids.

    Parameters
    ----------
    arena
        The arena (live: a ``WallClock`` and ``LivePacing``).
    until
        No round opens at or after this instant; ``None`` runs forever (until
        cancelled).
    start
        The first round is the first open at or after this (default: now).
    on_round
        Called with each round's id as it finishes.

    Returns
    -------
    list[str]
        The ids of the rounds run, in open order.
    """
    clock = arena.clock
    await arena.resume()  # a restart goes on from the record; a cut round is voided now
    open_at = next_open(arena, (start or clock.now()).astimezone(UTC))
    running: dict[asyncio.Task[str], datetime] = {}
    finished: dict[datetime, str] = {}
    sleeper: asyncio.Task[None] | None = None

    def collect(done: Iterable[asyncio.Future[Any]]) -> None:
        for future in done:
            task = next((t for t in running if t is future), None)
            if task is None:
                continue
            opened = running.pop(task)
            finished[opened] = task.result()  # re-raises a round's error
            if on_round is not None:
                on_round(finished[opened])

    try:
        while until is None or open_at < until:
            sleeper = asyncio.create_task(clock.sleep_until(open_at))
            while not sleeper.done():
                waiting: set[asyncio.Future[Any]] = {sleeper, *running}
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                collect(done)
            running[asyncio.create_task(arena.run_round(open_at))] = open_at
            open_at += arena.preset.round_length
        while running:
            done, _ = await asyncio.wait(set(running), return_when=asyncio.FIRST_COMPLETED)
            collect(done)
    finally:
        leftovers = [*running, *([sleeper] if sleeper is not None else [])]
        for task in leftovers:
            task.cancel()
        await asyncio.gather(*leftovers, return_exceptions=True)
    return [finished[o] for o in sorted(finished)]
