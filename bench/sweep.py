"""A sweep of N replays, single-process against Ray with two workers (printed, not asserted).

The grid: the weights league, Open division, 20 daily symbols over four weeks
of real bars, one roster of four baselines (cash, equal-weight, momentum,
coin-flip), N seeds: N cells. Measured: the cells one after another in this
process (``sweep.run.run_local``, the code a Ray task runs), and the same
cells as Ray tasks on a local Ray of ``--workers`` CPUs started for the run
(start-up counted apart). The reports of both runs are compared byte for byte.

Run: ``.venv/bin/python bench/sweep.py [--cells 8] [--workers 2] [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from tradeleague.sweep.config import Cell, load_sweep
from tradeleague.sweep.run import import_ray, run_local, run_on_ray, start_local_ray

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


if __name__ == "__main__":
    main()
