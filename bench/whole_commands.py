"""Whole commands as a user times them: wall clock and peak memory of each process (printed).

``tradeleague replay weights`` over 20 daily rounds of 20 US equities with N
rule-based baselines (the roster cycling through every baseline), run as a user
runs it: a fresh process that replays, refreshes the read models, verifies the
record, prints the boards and the per-agent summary and writes REPORT.json.
Then ``tradeleague verify`` alone on the store the largest replay wrote, as
events per second. Each figure is the wall time of the whole process and its
own peak RSS (``os.wait4``); the inner benchmarks (``weights_replay.py``) show
where the time goes. Targets (issue 31): 1,000 baselines at most 2.5 s;
10,000 at most 20 s with peak RSS under 1.5 GB; verify at least 100,000 events/s.

Run: ``.venv/bin/python bench/whole_commands.py [--agents 1,1000,10000]
[--data ../shared/data/us_equities_daily]``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYMBOLS = "AAPL,AMZN,GOOGL,META,MSFT,NVDA,TSLA,QQQ,SGOV,SPY,USO,JPM,V,MA,COST,WMT,XOM,LLY,AVGO,NFLX"
KINDS = ("cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip")
START, END = "2025-06-02", "2025-06-30"  # 20 trading days


def _tradeleague() -> str:
    return str(Path(sys.executable).with_name("tradeleague"))


def timed(argv: list[str]) -> tuple[float, float, int]:
    """Run ``argv`` to its end; return its wall seconds, peak RSS in MiB and exit status."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if process.stderr is not None:
        process.stderr.close()
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def replay_argv(agents: int, data: Path, db: Path, out: Path) -> list[str]:
    """Return the command line of a replay of ``agents`` baselines."""
    argv = [_tradeleague(), "replay", "weights", "--market", str(data), "--symbols", SYMBOLS]
    argv += ["--start", START, "--end", END, "--db", f"sqlite:///{db}", "--out", str(out)]
    for i in range(agents):
        argv += ["--agent", f"a{i}=baseline:{KINDS[i % len(KINDS)]}"]
    return argv


def main() -> None:
    """Print one line per command: agents, wall seconds, peak RSS, and verify's events/s."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="1,1000,10000")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/us_equities_daily")
    args = parser.parse_args()
    sizes = [int(n) for n in args.agents.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db = work / "none.db"
        for n in sizes:
            db = work / f"w{n}.db"
            wall, rss, code = timed(replay_argv(n, args.data, db, work / f"r{n}.json"))
            print(
                f"whole replay weights, {n:,} baselines x 20 rounds: {wall:.2f} s, "
                f"peak RSS {rss:,.0f} MiB (exit {code})",
                flush=True,
            )
        with sqlite3.connect(db) as connection:
            events = int(connection.execute("select count(*) from events").fetchone()[0])
        wall, rss, code = timed([_tradeleague(), "verify", "--db", f"sqlite:///{db}"])
        print(
            f"whole verify, {events:,} events: {wall:.2f} s, {events / wall:,.0f} events/s, "
            f"peak RSS {rss:,.0f} MiB (exit {code})",
            flush=True,
        )


if __name__ == "__main__":
    main()
