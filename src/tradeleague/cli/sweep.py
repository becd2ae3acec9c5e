"""``tradeleague sweep``: a grid of replays as Ray tasks, merged into one report and board."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.terminal.console import board_console

__all__ = ["register"]

_CONFIG_HELP = (
    "The sweep file (TOML): seeds, and per format (\\[weights], \\[direction], \\[thesis]) its "
    "seasons and rosters; e.g. examples/sweep.toml. Paths in it are relative to the file."
)
_OUT_HELP = (
    "Folder for the sweep: each cell's store, REPORT.json and log under cells/, the merged "
    "REPORT.json and BOARD.md at the top. Run again to resume."
)
_ADDRESS_HELP = (
    "A Ray cluster to run on (e.g. ray://head:10001); every node must see the same paths. "
    "Default: a local Ray started for this sweep."
)
_WORKERS_HELP = (
    "Cells run at once (a local Ray's CPUs, or --local's processes). Default: this machine's CPUs."
)
_LOCAL_HELP = (
    "Run the cells in processes on this machine, without Ray (no ports opened); "
    "the reports are the same byte for byte."
)


def sweep(
    config: Annotated[Path, typer.Option("--config", metavar="FILE", help=_CONFIG_HELP)],
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help=_OUT_HELP)] = Path("sweep"),
    address: Annotated[
        str | None, typer.Option("--address", metavar="RAY_ADDRESS", help=_ADDRESS_HELP)
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", metavar="N", min=1, max=1024, help=_WORKERS_HELP)
    ] = None,
    local: Annotated[bool, typer.Option("--local", help=_LOCAL_HELP)] = False,
) -> None:
    r"""Run a grid of replays (formats x seasons x rosters x seeds) as Ray tasks; merge the boards.

    Each cell is the format's own replay (tradeleague replay weights,
    direction or thesis) with its own store and REPORT.json; a line is printed
    as each finishes (on Ray, naming the node that ran it). The merged
    REPORT.json (each cell's format, season, roster and seed, its outcome and
    figures) and BOARD.md are written to --out. Exits 1
    when a cell failed (its error is in the report; the others still run).
    Needs the tradeleague\[ray] extra, except with --local (processes on
    this machine, the same reports).

    Example: tradeleague sweep --config examples/sweep.toml --out sweep-out --workers 2
    """
    from tradeleague.sweep.config import load_sweep
    from tradeleague.sweep.merge import board_markdown, merged_report
    from tradeleague.sweep.run import import_ray, ray_session, run_local, run_on_ray

    if local and address is not None:
        raise ConfigError("--local runs on this machine: leave out --address")
    plan = load_sweep(config)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file: give a folder for the sweep")
    if not local:
        import_ray()  # before anything is written: a missing extra is one sentence
    console = board_console()
    total = len(plan.cells)
    console.print(
        f"Sweep of {total} cells from {config}, into {out}", highlight=False, markup=False
    )
    finished = 0

    def done(index: int, cell: Any, result: dict[str, Any]) -> None:
        nonlocal finished
        finished += 1
        outcome = "ok" if result["exit_code"] == 0 else f"FAILED: {result['error']}"
        where = f" on Ray node {result['node']}" if result.get("node") else ""
        console.print(
            f"[{finished}/{total}] {cell.label}: {outcome} ({result['seconds']:.1f} s{where})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )

    if local:
        out.mkdir(parents=True, exist_ok=True)
        results = run_local(plan.cells, out, done, workers=workers or os.cpu_count() or 1)
    else:
        with ray_session(address, workers):
            out.mkdir(parents=True, exist_ok=True)
            results = run_on_ray(plan.cells, out, done, workers=workers)
    report = merged_report(config, out, plan.cells, results, plan.windows)
    (out / "REPORT.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / "BOARD.md").write_text(board_markdown(report), encoding="utf-8")
    console.print(_board_table(report))
    _print_ratings(console, out)
    console.print(f"Report written to {out / 'REPORT.json'}, board to {out / 'BOARD.md'}")
    if report["cells_failed"]:
        console.print(
            f"{report['cells_failed']} of {total} cells failed; their errors are in the report.",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(1)


def _board_table(report: dict[str, Any]) -> Table:
    from tradeleague.sweep.merge import BOARD_COLUMNS, board_cells

    table = Table(title="Sweep board", caption=DISCLAIMER)
    for column in BOARD_COLUMNS:
        table.add_column(column, no_wrap=column != "detail")
    for row in report["board"]:
        table.add_row(*board_cells(row))
    return table


def _print_ratings(console: Any, out: Path) -> None:
    """Print each format's rating across the sweep's seasons and seeds (``tradeleague rating``)."""
    from tradeleague.league.ratings import sweep_ratings
    from tradeleague.plugin import get
    from tradeleague.terminal.ratings import rating_tables

    for key, rating in sweep_ratings(out).items():
        for table in rating_tables(rating, get(key).title):
            console.print(table)
    console.print(
        f"Exact values: tradeleague rating --sweep {out} --json",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    """Add ``sweep`` to ``app``."""
    app.command("sweep")(sweep)
