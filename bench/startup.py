"""Start-up and small-command wall times of the CLI (printed, not asserted).

Each command runs in a fresh interpreter, as a user types it; the median of
``--repeat`` runs is reported. Measured: ``tradeleague --help``; a one-agent
weights replay of 20 daily rounds (``replay weights``, SQLite in a temporary
folder); ``stats null`` with 10,000 coin flippers over six weeks of daily bars.
Targets (issue 16): 0.5 s, 1.5 s and 5 s.

Run: ``.venv/bin/python bench/startup.py [--repeat 3] [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYMBOLS = "AAPL,AMZN,GOOGL,META,MSFT,NVDA,TSLA,QQQ,SGOV,SPY,USO,JPM,V,MA,COST,WMT,XOM,LLY,AVGO,NFLX"


def _time(args: list[str], env: dict[str, str], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tradeleague.cli", *args],
            check=True,
            capture_output=True,
            env=env,
            cwd=ROOT,
        )
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    """Time the commands and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    daily = str(args.data / "us_equities_daily")
    help_s = _time(["--help"], env, args.repeat)
    print(f"startup: tradeleague --help                      {help_s:6.2f} s (target 0.5 s)")
    with tempfile.TemporaryDirectory() as tmp:
        replays = []
        for i in range(args.repeat):
            replay = [
                "replay", "weights", "--market", daily, "--symbols", SYMBOLS,
                "--start", "2026-06-08", "--end", "2026-07-08",  # end exclusive: 20 rounds
                "--agent", "a=baseline:equal_weight",
                "--db", f"sqlite:///{Path(tmp) / f'one-{i}.db'}",
            ]  # fmt: skip
            replays.append(_time(replay, env, 1))
        one_s = statistics.median(replays)
    print(f"startup: one-agent replay, 20 daily rounds        {one_s:6.2f} s (target 1.5 s)")
    null = [
        "stats", "null", "--market", daily, "--symbols", SYMBOLS, "--start", "2026-05-25",
        "--end", "2026-07-06", "--agents", "10000", "--kind", "coin-flip", "--json",
    ]  # fmt: skip
    null_s = _time(null, env, args.repeat)
    print(f"startup: stats null, 10,000 agents, six weeks     {null_s:6.2f} s (target 5 s)")


if __name__ == "__main__":
    main()
