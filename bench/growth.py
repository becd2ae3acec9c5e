"""Growth: the store's size and ``verify``'s time per million events (printed, not asserted).

A real weights Open season (``--agents`` baselines, 20 daily rounds of 20 US
equities from ``../shared/data``, as ``bench/weights_replay.py`` replays it)
is recorded once; its events are then appended again and again through
``Store.append`` (hashes chained as every append chains them) as further
seasons, each under its own season id (the template's id rewritten in the
stream and the payloads, ids drawn afresh, times moved on 28 days a season),
until the store holds at least ``--events`` events: a league's years, built
without replaying each season. Then, on that store:

- its size (SQLite: the file after a WAL checkpoint; PostgreSQL: the database);
- a whole ``verify`` (the chain and every projection rebuilt, as the command);
- ``verify --since SEQ`` from a head signed at the start of the last season:
  a day's (here a season's) audit that reads only what came after it.

Each is reported per million events. Issue 31 asks for these at one million
events or more (a year of a 1,000-agent weights league is 1.26 million
agent-rounds).

Run: ``nice .venv/bin/python bench/growth.py [--events 1000000] [--agents 1000]
[--data ../shared/data/us_equities_daily] [--db postgresql+psycopg://.../empty]``
(``--db``: an empty store to fill instead of a SQLite file in a temporary folder).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa
from weights_replay import (  # type: ignore[import-not-found]  # bench/ is this script's folder
    END,
    KINDS,
    START,
    SYMBOLS,
)

from tradeleague.cli.store import register_projections
from tradeleague.events import Event
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import load_dataset
from tradeleague.store import Store, open_store, verify, verify_since
from tradeleague.store.signing import sign_head

TEMPLATE = "growth-0000"
"""The template season's id; every copy's id has the same length (``growth-NNNN``)."""

APPEND_BATCH = 5_000


def _template(store: Store, agents: int, data: Path) -> list[Event]:
    """Replay one real season of ``agents`` baselines into ``store``; return its events."""
    dataset = load_dataset(data, symbols=SYMBOLS)
    specs = [f"a{i:05d}=baseline:{KINDS[i % len(KINDS)]}" for i in range(agents)]
    roster = [
        RosterEntry(name=s.split("=")[0], spec=s.split("=")[1], division=Division.OPEN)
        for s in specs
    ]
    _parsed, built, _gateway = build_agents(specs)
    asyncio.run(
        run_season(
            store,
            FrozenBarsSource(dataset),
            roster,
            built,
            season_id=TEMPLATE,
            start=START,
            end=END,
        )
    )
    return [stored.event for stored in store.events()]


def _copy(events: list[Event], season: int) -> list[Event]:
    """Return the template's events as season ``season``'s (new id, stream, times)."""
    name = f"growth-{season:04d}"
    shift = timedelta(days=28 * season)
    return [
        Event(
            e.stream.replace(TEMPLATE, name),
            e.kind,
            json.loads(e.payload_json.replace(TEMPLATE, name)),
            e.occurred_at + shift,
        )
        for e in events
    ]


def _size(store: Store) -> int:
    """Return the store's bytes on disk (SQLite file after a checkpoint, or the database)."""
    with store.engine.begin() as conn:
        if store.backend == "postgresql":
            return int(
                conn.execute(sa.text("SELECT pg_database_size(current_database())")).scalar_one()
            )
        conn.execute(sa.text("PRAGMA wal_checkpoint(TRUNCATE)"))
    path = store.engine.url.database
    assert path is not None
    return Path(path).stat().st_size


def _per_million(value: float, events: int) -> float:
    return value * 1_000_000 / events


def main() -> None:
    """Build the store, measure, print one line per figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(__file__).resolve().parents[1]
        / ".."
        / "shared"
        / "data"
        / "us_equities_daily",
    )
    parser.add_argument("--db", default=None, help="an empty store to fill (default: SQLite)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()} at start", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(args.db or f"sqlite:///{Path(tmp) / 'growth.db'}")
        t0 = time.perf_counter()
        template = _template(store, args.agents, args.data)
        print(
            f"template season: {len(template):,} events ({args.agents} agents x 20 rounds) "
            f"in {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        season, total = 0, len(template)
        t0 = time.perf_counter()
        last_start = 0
        while total < args.events:
            season += 1
            copy = _copy(template, season)
            last_start = store.head().seq
            for at in range(0, len(copy), APPEND_BATCH):
                store.append(copy[at : at + APPEND_BATCH])
            total += len(copy)
        built_s = time.perf_counter() - t0
        events = store.head().seq
        copied = events - len(template)
        print(
            f"store: {events:,} events in {season + 1} seasons; {copied:,} copied events "
            f"appended in {built_s:.1f} s ({copied / max(built_s, 1e-9):,.0f} events/s)",
            flush=True,
        )
        size = _size(store)
        print(
            f"size: {size / 2**20:,.1f} MiB, {_per_million(size, events) / 2**20:,.1f} MiB "
            f"per million events ({size / events:,.0f} bytes per event)",
            flush=True,
        )
        register_projections()
        t0 = time.perf_counter()
        report = verify(store)
        whole_s = time.perf_counter() - t0
        print(
            f"verify (whole): {whole_s:.1f} s, {_per_million(whole_s, events):.1f} s per million "
            f"events ({events / whole_s:,.0f} events/s), ok={report.ok}, "
            f"mismatches={len(report.mismatches)}",
            flush=True,
        )
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        with store.transaction("read the checkpoint from") as conn:
            digest = conn.execute(
                sa.text("SELECT hash FROM events WHERE seq = :s"), {"s": last_start}
            ).scalar_one()
        signed = sign_head(Ed25519PrivateKey.generate(), last_start, str(digest))
        assert signed.signature_valid()
        t0 = time.perf_counter()
        since = verify_since(store, (signed.seq, signed.hash))
        since_s = time.perf_counter() - t0
        print(
            f"verify --since {last_start:,}: {since.events:,} events in {since_s:.2f} s "
            f"({since.events / since_s:,.0f} events/s; "
            f"{_per_million(since_s, max(since.events, 1)):.1f} s per million read), "
            f"ok={since.ok}",
            flush=True,
        )
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {rss_mb:,.0f} MB; load average {os.getloadavg()} at end", flush=True)
        store.close()


if __name__ == "__main__":
    main()
