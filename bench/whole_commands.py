"""Whole commands as a user times them: wall clock and peak memory of each process (printed).

``tradeleague replay weights`` over 20 daily rounds of 20 US equities with N
rule-based baselines (the roster cycling through every baseline), run as a user
runs it: a fresh process that replays, refreshes the read models, verifies the
record, prints the boards and the per-agent summary and writes REPORT.json.
Then ``tradeleague verify`` alone on the store the largest replay wrote, as
events per second. Each figure is the wall time of the whole process and its
own peak RSS (``os.wait4``), beside its CPU time (user + system: the command
runs on one core, so on a machine other processes share, CPU time is what the
wall time would be alone) and the load average when it started. Beside each
size, on the same run, the inner figure (``weights_replay.py``: the replay and
the refresh in this process, no report, no verify, no printing), which shows
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

import weights_replay  # type: ignore[import-not-found]  # bench/ is this script's folder

ROOT = Path(__file__).resolve().parents[1]
SYMBOLS = "AAPL,AMZN,GOOGL,META,MSFT,NVDA,TSLA,QQQ,SGOV,SPY,USO,JPM,V,MA,COST,WMT,XOM,LLY,AVGO,NFLX"
KINDS = ("cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip")
START, END = "2025-06-02", "2025-06-30"  # 20 trading days


def _tradeleague() -> str:
    return str(Path(sys.executable).with_name("tradeleague"))


def timed(argv: list[str]) -> tuple[float, float, float, int]:
    """Run ``argv`` to its end; return its wall and CPU seconds, peak RSS in MiB and exit status."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if process.stderr is not None:
        process.stderr.close()
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def load() -> str:
    """Return the one-minute load average, for the line of a figure taken on a shared machine."""
    return f"load {os.getloadavg()[0]:.1f}"


def inner(agents: int, data: Path, work: Path) -> str:
    """Return the inner figure of ``agents`` baselines: replay and refresh in this process."""
    started = time.process_time()
    replay_s, refresh_s, _rounds = weights_replay.replay(agents, data, work)
    cpu = time.process_time() - started
    return f"inner (replay + refresh, in process): {replay_s + refresh_s:.2f} s, CPU {cpu:.2f} s"


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
            before = load()
            wall, cpu, rss, code = timed(replay_argv(n, args.data, db, work / f"r{n}.json"))
            print(
                f"whole replay weights, {n:,} baselines x 20 rounds: {wall:.2f} s, "
                f"CPU {cpu:.2f} s, peak RSS {rss:,.0f} MiB (exit {code}; {before}); "
                f"{inner(n, args.data, work)}",
                flush=True,
            )
        with sqlite3.connect(db) as connection:
            events = int(connection.execute("select count(*) from events").fetchone()[0])
        before = load()
        wall, cpu, rss, code = timed([_tradeleague(), "verify", "--db", f"sqlite:///{db}"])
        print(
            f"whole verify, {events:,} events: {wall:.2f} s, {events / wall:,.0f} events/s, "
            f"CPU {cpu:.2f} s, {events / max(cpu, 1e-9):,.0f} events per CPU second, "
            f"peak RSS {rss:,.0f} MiB (exit {code}; {before})",
            flush=True,
        )


if __name__ == "__main__":
    main()
