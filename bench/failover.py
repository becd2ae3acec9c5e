"""How fast a standby host leads after the leader dies, on PostgreSQL (printed, not asserted).

A leader process takes the store's leadership (``host.leader.Leadership``: a
PostgreSQL session advisory lock) and is killed with SIGKILL, as a crash would;
a standby in this process polls as ``tradeleague run`` does (every second) and
the time from the kill to its leading is measured, ``--repeat`` times.

Run: ``.venv/bin/python bench/failover.py [--db postgresql+psycopg://...] [--repeat 5]``
(default: a fresh database, dropped after, on the local PostgreSQL server the tests use,
``tradeleague.testing.env.find_postgres``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from tradeleague.host.leader import Leadership
from tradeleague.store import open_store
from tradeleague.testing.env import find_postgres

ROOT = Path(__file__).resolve().parents[1]
_LEADER = """
import sys, time
from tradeleague.host.leader import Leadership
from tradeleague.store import open_store
store = open_store(sys.argv[1])
assert Leadership(store).try_lead()
print("leading", flush=True)
time.sleep(600)
"""


def once(url: str) -> float:
    """Start a leader, kill it, return the seconds until the standby here leads."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    leader = subprocess.Popen(
        [sys.executable, "-c", _LEADER, url], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert leader.stdout is not None
        assert leader.stdout.readline().strip() == "leading"
        store = open_store(url, upgrade=False)
        standby = Leadership(store)
        assert not standby.try_lead()
        os.kill(leader.pid, signal.SIGKILL)
        t0 = time.perf_counter()
        asyncio.run(standby.wait(poll_s=1.0))
        took = time.perf_counter() - t0
        standby.release()
        store.close()
        return took
    finally:
        leader.kill()
        leader.wait()


@contextlib.contextmanager
def fresh_database(server: str) -> Iterator[str]:
    """Create an empty database on ``server`` for the run; drop it after."""
    name = f"tl_failover_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{server.rpartition('/')[0]}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> None:
    """Measure the takeover ``--repeat`` times; print the median and the worst."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.db is not None:
        runs = [once(args.db) for _ in range(args.repeat)]
    else:
        server = find_postgres()
        if server is None:
            raise SystemExit("no PostgreSQL server: give --db postgresql+psycopg://...")
        with fresh_database(server) as url:
            runs = [once(url) for _ in range(args.repeat)]
    print(
        f"failover: standby leads {statistics.median(runs):.2f} s after the leader's SIGKILL "
        f"(median of {len(runs)}, worst {max(runs):.2f} s; the standby polls every 1 s)"
    )


if __name__ == "__main__":
    main()
