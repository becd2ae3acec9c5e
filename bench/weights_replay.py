"""A weights Open replay of baseline agents, by roster size (printed, not asserted).

Each size replays 20 daily rounds of 20 US equities (``../shared/data`` by
default) on SQLite, with the roster cycling through every weights baseline, then
refreshes the projections, as ``tradeleague replay weights`` does. Reported per
size: wall time of the replay, of the refresh, the time per added agent-round
over the one-agent replay, and this process's peak RSS (it only grows, so run
the sizes in increasing order). Target (issue 16): at most 0.1 ms per added
agent-round at 1,000 agents, peak memory under 500 MB.

Run: ``.venv/bin/python bench/weights_replay.py [--agents 1,10,100,1000]
[--data ../shared/data/us_equities_daily] [--db postgresql+psycopg://...]``
(``--db``: an empty store to record into instead of a SQLite file per size).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import load_dataset
from tradeleague.store import open_store

SYMBOLS = [
    "AAPL",
    "AMZN",
    "GOOGL",
    "META",
    "MSFT",
    "NVDA",
    "TSLA",
    "QQQ",
    "SGOV",
    "SPY",
    "USO",
    "JPM",
    "V",
    "MA",
    "COST",
    "WMT",
    "XOM",
    "LLY",
    "AVGO",
    "NFLX",
]
KINDS = ("cash", "buy_and_hold", "equal_weight", "momentum", "coin_flip")
START, END = date(2026, 6, 8), date(2026, 7, 8)  # the end is exclusive: 20 trading days


def replay(n: int, data: Path, workdir: Path, db: str | None = None) -> tuple[float, float, int]:
    """Replay ``n`` baselines; return (replay seconds, refresh seconds, rounds).

    Into ``db`` when given (each size its own season there), else a SQLite file per size.
    """
    dataset = load_dataset(data, symbols=SYMBOLS)
    specs = [f"a{i:05d}=baseline:{KINDS[i % len(KINDS)]}" for i in range(n)]
    roster = [
        RosterEntry(name=s.split("=")[0], spec=s.split("=")[1], division=Division.OPEN)
        for s in specs
    ]
    _parsed, agents, _gateway = build_agents(specs)
    store = open_store(db or f"sqlite:///{workdir / f'replay-{n}.db'}")
    t0 = time.perf_counter()
    state = asyncio.run(
        run_season(
            store,
            FrozenBarsSource(dataset),
            roster,
            agents,
            season_id=f"bench-{n}",
            start=START,
            end=END,
        )
    )
    t1 = time.perf_counter()
    store.refresh_projections()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, len(state.rounds)


def main() -> None:
    """Run the sizes and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="1,10,100,1000")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(__file__).resolve().parents[1]
        / ".."
        / "shared"
        / "data"
        / "us_equities_daily",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="record into this (empty) store instead of a SQLite file per size, "
        "e.g. postgresql+psycopg://127.0.0.1:5432/bench",
    )
    args = parser.parse_args()
    sizes = [int(x) for x in args.agents.split(",")]
    base: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            run_s, refresh_s, rounds = replay(n, args.data, Path(tmp), args.db)
            total = run_s + refresh_s
            if base is None:
                base = total
            added = (n - sizes[0]) * rounds
            per = (total - base) / added * 1000 if added > 0 else 0.0
            rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"weights replay: {n:5d} agents x {rounds} rounds: replay {run_s:7.2f} s, "
                f"refresh {refresh_s:6.2f} s, {per:6.3f} ms per added agent-round, "
                f"peak RSS {rss_mb:6.0f} MB",
                flush=True,
            )
    sys.exit(0)


if __name__ == "__main__":
    main()
