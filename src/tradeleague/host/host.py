"""``tradeleague run``: the host process, from a checked league file to a stop (issue 12).

In order: the league file is checked whole (before any database is touched);
the store is opened; the host takes the leadership (a standby on PostgreSQL
waits for it; a second host on SQLite stops, naming the holder); the drivers
are built, one per format of the file, each by its format's ``host`` part
(``host.plugin.HostPart``; each takes up its state from its events); then the loop
runs under the chosen clock until it ends (replay: ``--to``) or is stopped
(SIGTERM, Ctrl-C: no new round opens, the rounds in flight finish).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tradeleague.clock import WallClock
from tradeleague.errors import ConfigError
from tradeleague.host.config import LeagueConfig, hosted_formats
from tradeleague.host.heads import HeadPublisher
from tradeleague.host.http import serve_http
from tradeleague.host.leader import Leadership, NotLeader
from tradeleague.host.metrics import Metrics
from tradeleague.host.plugin import Driver
from tradeleague.host.runner import run_live, run_replay
from tradeleague.host.timed_store import timed
from tradeleague.host.watch import Watch
from tradeleague.store import Store, open_store

__all__ = ["HostOptions", "HostRun", "run_host"]

_log = logging.getLogger("tradeleague.host")


@dataclass(frozen=True, slots=True, kw_only=True)
class HostOptions:
    """How to run: the clock, the replayed span, the HTTP address and standby."""

    replay: bool = False
    start: datetime | None = None
    end: datetime | None = None
    http: str | None = None
    db: str | None = None
    standby: bool = True
    until: datetime | None = None
    """Live only: stop opening rounds at this instant (drills and tests)."""


@dataclass(frozen=True, slots=True)
class HostRun:
    """What a host run did: the rounds it played and, per format, the seasons they were in."""

    rounds: int
    played: dict[str, list[str]]
    """Per format key, the seasons (as its driver names them: a season id, or the
    arena's stream) in which it played a slot, in the order first played."""


def _drivers(
    store: Store, config: LeagueConfig, options: HostOptions
) -> tuple[list[Driver], dict[str, datetime | None]]:
    """Return a driver per format of the league file (listing order), and each one's ``since``."""
    drivers: list[Driver] = []
    clock = None if options.replay else WallClock()
    span = None
    if options.replay and options.start is not None and options.end is not None:
        span = (options.start, options.end)
    for fmt in hosted_formats():
        if fmt.key in config.formats:
            part = fmt.part("host")
            drivers.append(
                part.driver(
                    store, config.formats[fmt.key], clock=clock, span=span, prices=config.prices
                )
            )
    return drivers, {d.fmt: d.since for d in drivers}


async def _run(
    store: Store, config: LeagueConfig, options: HostOptions, metrics: Metrics
) -> HostRun:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    leadership = Leadership(store)
    state: dict[str, Any] = {"ok": True, "leader": False, "pid": os.getpid()}
    http_task = None
    address = options.http or config.http
    if address is not None:
        http_task = asyncio.create_task(serve_http(address, metrics, lambda: dict(state), stop))
    try:
        if not leadership.try_lead():
            if store.backend != "postgresql" or not options.standby:
                raise NotLeader(
                    f"another host leads this store: {leadership.holder()}; a SQLite store "
                    "has one host (use PostgreSQL for a standby)"
                )
            _log.info("standing by: another host leads", extra={"holder": leadership.holder()})
            waiter = asyncio.create_task(leadership.wait())
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if stop.is_set():
                waiter.cancel()
                return HostRun(0, {})
        state["leader"] = True
        _log.info("leading", extra={"pid": os.getpid(), "store": store.url})
        heads = None
        if config.head_key is not None and config.head_out is not None:
            heads = HeadPublisher(config.head_key, config.head_out)
        after = None if heads is None else (lambda: heads.publish(store))
        drivers, since = _drivers(store, config, options)
        watch = Watch(store, metrics)
        try:
            if options.replay:
                if options.start is None or options.end is None:
                    raise ConfigError("--clock replay needs --from and --to")
                played = await run_replay(
                    store, drivers, options.start, options.end, watch, stop, after=after
                )
            else:
                played = await run_live(
                    store,
                    drivers,
                    since,
                    WallClock(),
                    watch,
                    stop,
                    until=options.until,
                    after=after,
                )
        finally:
            for driver in drivers:
                await driver.aclose()
            if heads is not None:
                heads.publish(store)  # the last head, rounds in flight included
        _log.info("stopped", extra={"rounds": played})
        return HostRun(played, watch.played)
    finally:
        leadership.release()
        stop.set()
        if http_task is not None:
            with contextlib.suppress(Exception):
                await http_task
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


def run_host(config: LeagueConfig, options: HostOptions, metrics: Metrics | None = None) -> HostRun:
    """Run the host until it ends or is stopped; return what it played.

    Raises
    ------
    ConfigError
        If the store is led by another host (SQLite), or the options are wrong.
    """
    metrics = metrics or Metrics()
    with open_store(config.store_url(options.db)) as plain:
        store = timed(plain, metrics)
        return asyncio.run(_run(store, config, options, metrics))
