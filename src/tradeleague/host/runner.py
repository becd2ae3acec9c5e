"""The host's loop: every configured format on its schedule, under one kind of clock.

- Replay clock (``run_replay``): every slot of ``[start, end)``, merged across
  formats in time order, played as fast as the machine allows (no sleeping).
  Slots already recorded are skipped, so the same command resumes.
- A slot whose season cannot open (a weights season whose universe cannot be
  read from the chain) is recorded as missed with the driver's reason
  (``no_universe``) and a warning; the next slot tries again.
- Live clock (``run_live``): first, every slot of each format whose time has
  passed since the format's start unplayed is recorded as missed
  (``host_down``), never played late; then each slot is played at its time,
  as a task, so a round settling never delays the next one. A stop request
  (SIGTERM, Ctrl-C) opens no new round and waits for the rounds in flight.
- Every round played goes through the host's `Watch` (``host/watch.py``): its
  model calls on ``/metrics``, warnings for an agent's faults past a threshold
  and for a feed gone stale, and the seasons played for the closing boards.
  "round played" is logged at info level live, at debug level under replay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from tradeleague.clock import Clock
from tradeleague.events import Event, utc_iso
from tradeleague.events.host import HOST_DOWN, SLOT_MISSED, host_stream
from tradeleague.host.metrics import Metrics
from tradeleague.host.missed import missed_slots
from tradeleague.host.plugin import Driver, SlotUnplayable
from tradeleague.host.schedule import merged_slots
from tradeleague.host.watch import Watch
from tradeleague.store import Store

__all__ = ["AfterSlot", "record_missed", "run_live", "run_replay"]

AfterSlot = Callable[[], object]
"""Called after each slot is played or recorded missed (the host publishes its signed head)."""

_log = logging.getLogger("tradeleague.host")


def _unplayable(store: Store, driver: Driver, slot: datetime, exc: SlotUnplayable) -> None:
    """Record ``slot`` as missed for the reason ``exc`` gives; it is never played late."""
    payload = {
        "format": driver.fmt,
        "season": driver.season_of(slot),
        "slot": utc_iso(slot),
        "reason": exc.reason,
        "detail": str(exc),
    }
    store.append([Event(host_stream(driver.fmt), SLOT_MISSED, payload, slot)])


async def _play(
    driver: Driver, slot: datetime, watch: Watch, after: AfterSlot | None, level: int
) -> None:
    try:
        await _play_slot(driver, slot, watch, level)
    finally:
        if after is not None:
            after()


async def _play_slot(driver: Driver, slot: datetime, watch: Watch, level: int) -> None:
    store, metrics = watch.store, watch.metrics
    seq_before = store.head().seq
    started = time.monotonic()
    try:
        events = await driver.play(slot)
    except SlotUnplayable as exc:
        _unplayable(store, driver, slot, exc)
        metrics.missed(driver.fmt, exc.reason)
        _log.warning(
            "slot missed",
            extra={
                "format": driver.fmt,
                "season": driver.season_of(slot),
                "slot": utc_iso(slot),
                "reason": exc.reason,
                "detail": str(exc),
            },
        )
        return
    if not events:  # the arena appends as it goes: read back what the round wrote
        events = watch.read_back(driver.stream, seq_before)
    watch.round(driver, slot, events, seq_before)
    _log.log(
        level,
        "round played",
        extra={
            "format": driver.fmt,
            "season": driver.season_of(slot),
            "slot": utc_iso(slot),
            "seconds": round(time.monotonic() - started, 3),
        },
    )


async def run_replay(
    store: Store,
    drivers: Sequence[Driver],
    start: datetime,
    end: datetime,
    watch: Watch,
    stop: asyncio.Event,
    *,
    after: AfterSlot | None = None,
) -> int:
    """Play every unplayed slot of ``[start, end)`` in time order; return how many were played.

    A slot recorded missed is skipped, as a played one is. ``after`` is called
    after each slot played. Each round played is logged at debug level (the
    run ends with the boards of what it played); warnings stay warnings.
    """
    slots = merged_slots(drivers, start, end)
    missed = {d.fmt: set(missed_slots(store, d.fmt)) for d in drivers}
    played = 0
    for slot, driver in slots:
        if stop.is_set():
            break
        if utc_iso(slot) in missed[driver.fmt] or driver.played(slot):
            continue  # a slot recorded missed is never played late
        await _play(driver, slot, watch, after, logging.DEBUG)
        played += 1
    return played


def record_missed(
    store: Store,
    driver: Driver,
    since: datetime | None,
    now: datetime,
    metrics: Metrics,
) -> int:
    """Record every slot of ``[since, now)`` neither played nor recorded missed (``host_down``).

    Returns how many were recorded.
    """
    if since is None or since >= now:
        return 0
    known = missed_slots(store, driver.fmt)
    events = [
        Event(
            host_stream(driver.fmt),
            SLOT_MISSED,
            {
                "format": driver.fmt,
                "season": driver.season_of(slot),
                "slot": utc_iso(slot),
                "reason": HOST_DOWN,
            },
            now,
        )
        for slot in driver.slots(since, now)
        if not driver.played(slot) and utc_iso(slot) not in known
    ]
    if events:
        store.append(events)
        for _ in events:
            metrics.missed(driver.fmt, HOST_DOWN)
        _log.warning(
            "slots missed while the host was down",
            extra={"format": driver.fmt, "season": driver.season, "count": len(events)},
        )
    return len(events)


async def run_live(
    store: Store,
    drivers: Sequence[Driver],
    since: dict[str, datetime | None],
    clock: Clock,
    watch: Watch,
    stop: asyncio.Event,
    *,
    until: datetime | None = None,
    after: AfterSlot | None = None,
) -> int:
    """Run every format on the live clock until ``stop`` is set (or ``until``); return rounds run.

    ``since`` holds, per format, the time from which its unplayed slots count
    as missed (its configured start, or its first recorded round). ``after``
    is called once the missed slots are recorded, and after each slot played.
    Each round played is logged at info level.
    """
    now = clock.now()
    for driver in drivers:
        record_missed(store, driver, since.get(driver.fmt), now, watch.metrics)
    if after is not None:
        after()
    running: set[asyncio.Task[None]] = set()
    count = 0
    cursor = now
    stopper = asyncio.create_task(stop.wait())
    try:
        while not stop.is_set() and (until is None or cursor < until):
            window_end = cursor + timedelta(hours=1)
            if until is not None:
                window_end = min(window_end, until)
            for slot, driver in merged_slots(drivers, cursor, window_end):
                sleeper = asyncio.create_task(clock.sleep_until(slot))
                await asyncio.wait({sleeper, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if stop.is_set():
                    sleeper.cancel()
                    break
                if driver.played(slot):
                    continue
                task = asyncio.create_task(_play(driver, slot, watch, after, logging.INFO))
                running.add(task)
                task.add_done_callback(running.discard)
                count += 1
            cursor = window_end
        if running:
            _log.info("finishing the rounds in flight", extra={"rounds": len(running)})
            await asyncio.gather(*running)
    finally:
        stopper.cancel()
        for task in running:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*running, stopper, return_exceptions=True)
    return count
