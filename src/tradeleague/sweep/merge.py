"""The merged report and board of a sweep, read from each cell's own REPORT.json.

A cell's figures are its report's per-agent lines, as the replay wrote them
(exact decimal strings, never recomputed), read by the format's sweep part
(`tradeleague.sweep.plugin.SweepPart.figures`): for the weights league the
season return, drawdown, trades and rank; for the direction arena the balance,
ROI, hit rate, settled calls and rank; for the thesis league the return,
drawdown, Sharpe, win rate, trades and rank. The board is one row per agent per
cell, each row the part's (`SweepPart.board_row`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.league.results import agent_specs
from tradeleague.plugin import get
from tradeleague.sweep.config import Cell
from tradeleague.sweep.plugin import SweepPart

__all__ = ["BOARD_COLUMNS", "board_cells", "board_markdown", "cell_figures", "merged_report"]

BOARD_COLUMNS = ("format", "season", "roster", "seed", "agent", "rank", "return %", "detail")


def _part(fmt: str) -> SweepPart:
    part: SweepPart = get(fmt).part("sweep")
    return part


def cell_figures(fmt: str, report: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the per-agent figures of a cell's report, in the report's order."""
    return _part(fmt).figures(report)


def _read(cell: Cell, out: Path) -> list[dict[str, Any]] | None:
    path = out / cell.folder / "REPORT.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cell_figures(cell.format, report)


def merged_report(
    config: Path,
    out: Path,
    cells: Sequence[Cell],
    results: Sequence[dict[str, Any]],
    windows: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Return the sweep's REPORT.json: every cell's key, outcome and figures, and the board.

    No timings: the same sweep over the same data gives the same report, however
    its cells were spread over workers. ``windows`` (the sweep file's
    ``[windows]``, label: seasons) is written as it is, when given.
    """
    entries: list[dict[str, Any]] = []
    board: list[dict[str, Any]] = []
    for cell, result in zip(cells, results, strict=True):
        figures = _read(cell, out) if result["exit_code"] == 0 else None
        ok = result["exit_code"] == 0 and figures is not None
        entries.append(
            {
                **cell.key,
                "status": "ok" if ok else "failed",
                "exit_code": result["exit_code"],
                "error": None if ok else result["error"] or "the replay wrote no REPORT.json",
                "store": str(cell.folder / "store.db"),
                "report": str(cell.folder / "REPORT.json"),
                "log": str(cell.folder / "replay.log"),
                "agents": agent_specs(cell.options),
                "figures": figures if ok else None,
            }
        )
        if figures:
            part = _part(cell.format)
            board.extend({**cell.key, **part.board_row(row).fields()} for row in figures)
    named = {"windows": {k: list(v) for k, v in windows.items()}} if windows else {}
    return {
        "disclaimer": DISCLAIMER,
        "config": str(config),
        **named,  # only a sweep whose file names windows
        "cells_total": len(entries),
        "cells_failed": sum(1 for e in entries if e["status"] == "failed"),
        "cells": entries,
        "board": board,
    }


def board_cells(row: dict[str, Any]) -> list[str]:
    """Return a board row's cells as text, in ``BOARD_COLUMNS`` order."""
    values = (row["format"], row["season"], row["roster"], row["seed"], row["agent"],
              row["rank"], row["return"], row["detail"])  # fmt: skip
    return ["-" if v is None else str(v) for v in values]


def board_markdown(report: dict[str, Any]) -> str:
    """Return the board as a Markdown page (BOARD.md), failed cells listed after it."""
    lines = ["# Sweep board", "", f"From {report['config']}. {DISCLAIMER}", ""]
    lines.append("| " + " | ".join(BOARD_COLUMNS) + " |")
    lines.append("|" + "---|" * len(BOARD_COLUMNS))
    for row in report["board"]:
        cells = [c.replace("|", "\\|") for c in board_cells(row)]
        lines.append("| " + " | ".join(cells) + " |")
    failed = [c for c in report["cells"] if c["status"] == "failed"]
    if failed:
        lines += ["", "## Failed cells", ""]
        for c in failed:
            lines.append(
                f"- {c['format']} {c['season']} {c['roster']} seed={c['seed']}: {c['error']}"
            )
    return "\n".join(lines) + "\n"
