"""A sweep of N replays: single-process, on a local Ray, on a Ray of two nodes (printed).

The grid: the weights league, Open division, 20 daily symbols over four weeks
of real bars, one roster of four baselines (cash, equal-weight, momentum,
coin-flip), N seeds: N cells. Measured: the cells one after another in this
process (``sweep.run.run_local``, the code a Ray task runs), and the same
cells as Ray tasks on a local Ray of ``--workers`` CPUs started for the run
(start-up counted apart). The reports of both runs are compared byte for byte.

With ``--nodes 2`` it then starts a Ray cluster of two nodes on this machine
(``ray start --head`` and ``ray start --address``, one CPU each, their own
temporary folder, token and ports; `tradeleague.testing.ray_cluster`), runs
the whole command ``tradeleague sweep --address HEAD:PORT`` on it and
``tradeleague sweep --local`` beside it, counts the Ray nodes the cells ran on
(each cell's line in the sweep's log names its node) and compares every
cell's REPORT.json, the merged REPORT.json and BOARD.md byte for byte. Only
the cluster's own processes are ended after (``ray stop`` would end every Ray
of the user's).

Run: ``.venv/bin/python bench/sweep.py [--cells 8] [--workers 2] [--nodes 2]
[--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tradeleague.sweep.config import Cell, load_sweep
from tradeleague.sweep.run import import_ray, run_local, run_on_ray, start_local_ray
from tradeleague.testing.ray_cluster import two_node_ray

ROOT = Path(__file__).resolve().parents[1]
SYMBOLS = [
    "AAPL", "AMZN", "GOOGL", "META", "MSFT", "NVDA", "TSLA", "QQQ", "SGOV", "SPY",
    "USO", "JPM", "V", "MA", "COST", "WMT", "XOM", "LLY", "AVGO", "NFLX",
]  # fmt: skip


def _config(folder: Path, data: Path, cells: int) -> Path:
    path = folder / "sweep.toml"
    path.write_text(
        f"seeds = {list(range(cells))}\n"
        "[weights.seasons.june]\n"
        f'market = "{data / "us_equities_daily"}"\n'
        f"symbols = {SYMBOLS!r}\n".replace("'", '"')
        + 'start = "2026-06-08"\nend = "2026-07-07"\n'
        "[weights.rosters]\n"
        'four = ["cash=baseline:cash", "ew=baseline:equal-weight", '
        '"mom=baseline:momentum", "coin=baseline:coin-flip"]\n',
        encoding="utf-8",
    )
    return path


def _quiet(_index: int, _cell: Cell, result: dict[str, Any]) -> None:
    if result["exit_code"]:
        raise SystemExit(f"a cell failed: {result['error']}")


def main() -> None:
    """Time the sweep both ways and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument(
        "--nodes", type=int, choices=(0, 2), default=2, help="2: also a Ray of two nodes; 0: not"
    )
    args = parser.parse_args()
    ray = import_ray()
    with tempfile.TemporaryDirectory(prefix="tl-sweep-") as tmp:
        folder = Path(tmp)
        cells = load_sweep(_config(folder, args.data, args.cells)).cells
        t0 = time.perf_counter()
        alone = run_local(cells, folder / "alone", _quiet)
        single = time.perf_counter() - t0
        per_cell = sum(r["seconds"] for r in alone) / len(alone)
        print(
            f"sweep: {len(cells)} cells single-process           {single:7.2f} s "
            f"({per_cell:.2f} s a cell: 4 agents x 20 rounds each)"
        )
        t0 = time.perf_counter()
        ray_folder = start_local_ray(args.workers)
        start_up = time.perf_counter() - t0
        try:
            t0 = time.perf_counter()
            run_on_ray(cells, folder / "ray", _quiet, workers=args.workers)
            swept = time.perf_counter() - t0
        finally:
            ray.shutdown()
            shutil.rmtree(ray_folder, ignore_errors=True)
        same = all(
            (folder / "alone" / c.folder / "REPORT.json").read_bytes()
            == (folder / "ray" / c.folder / "REPORT.json").read_bytes()
            for c in cells
        )
        print(
            f"sweep: {len(cells)} cells on Ray, {args.workers} workers        {swept:7.2f} s "
            f"(+ {start_up:.2f} s Ray start-up); speed-up {single / swept:.2f}x "
            f"({single / (swept + start_up):.2f}x with start-up)"
        )
        print(
            f"sweep: reports byte-equal single-process vs Ray: {'yes' if same else 'NO'}; "
            f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
        )
        if args.nodes == 2:
            _two_nodes(folder, folder / "sweep.toml", cells)


def _tradeleague(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run ``tradeleague ARGV`` as a user does; return its wall time and what it printed."""
    command = [str(Path(sys.executable).with_name("tradeleague")), *argv]
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"tradeleague {' '.join(argv)} exited {done.returncode}:\n{done.stdout}")
    return seconds, done.stdout + done.stderr


def _two_nodes(folder: Path, config: Path, cells: Sequence[Cell]) -> None:
    """``sweep --address`` on a Ray of two nodes against ``sweep --local``: time, nodes, bytes."""
    base = ["sweep", "--config", str(config), "--workers", "2"]
    local, _ = _tradeleague([*base, "--local", "--out", str(folder / "local")])
    print(f"sweep: {len(cells)} cells, whole command, --local, 2 processes  {local:7.2f} s")
    t0 = time.perf_counter()
    with two_node_ray() as cluster:
        start_up = time.perf_counter() - t0
        swept, log = _tradeleague(
            [*base, "--address", cluster.address, "--out", str(folder / "nodes")], cluster.env
        )
        t0 = time.perf_counter()
    stop = time.perf_counter() - t0
    nodes = re.findall(r"on Ray node ([0-9a-f]+)", log)
    per_node = {node: nodes.count(node) for node in sorted(set(nodes))}
    print(
        f"sweep: {len(cells)} cells, whole command, --address, 2 nodes   {swept:7.2f} s "
        f"(+ {start_up:.2f} s to start the two nodes, {stop:.2f} s to stop them)"
    )
    print(
        "sweep: cells per Ray node: "
        + ", ".join(f"{node[:12]}: {count}" for node, count in per_node.items())
        + f" ({len(nodes)} of {len(cells)} cells named a node)"
    )
    names = [c.folder / "REPORT.json" for c in cells] + [Path("REPORT.json"), Path("BOARD.md")]
    same = all(
        (folder / "local" / name).read_bytes() == (folder / "nodes" / name).read_bytes()
        for name in names
    )
    print(
        f"sweep: {len(names)} reports byte-equal --local vs 2 nodes: {'yes' if same else 'NO'}; "
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
