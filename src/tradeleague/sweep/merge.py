"""The merged report and board of a sweep, read from each cell's own REPORT.json.

A cell's figures are its report's per-agent lines, as the replay wrote them
(exact decimal strings, never recomputed): for the weights league the season
return, drawdown, trades and rank; for the direction arena the balance, ROI,
hit rate, settled calls and rank; for the thesis league the return, drawdown,
Sharpe, win rate, trades and rank. The board is one row per agent per cell.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.sweep.config import Cell

__all__ = ["BOARD_COLUMNS", "board_cells", "board_markdown", "cell_figures", "merged_report"]

BOARD_COLUMNS = ("format", "season", "roster", "seed", "agent", "rank", "return %", "detail")


def cell_figures(fmt: str, report: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the per-agent figures of a cell's report, in the report's order."""
    if fmt == "weights":
        return [
            {
                "agent": a["name"],
                "division": a["division"],
                "rank": a["rank"],
                "season_return": a["season_return"],
                "max_drawdown": a["max_drawdown"],
                "trades": a["trades"],
                "unranked_reason": a["unranked_reason"],
            }
            for a in report["agents"]
        ]
    if fmt == "thesis":
        return [
            {
                "agent": row["name"],
                "rank": row["rank"],
                "return": row["return"],
                "max_drawdown": row["max_drawdown"],
                "sharpe": row["sharpe"],
                "win_rate": row["win_rate"],
                "trades": row["trades"],
            }
            for row in report["board"]
        ]
    return [
        {
            "agent": m["name"],
            "rank": m["rank"],
            "balance": m["balance"],
            "roi": m["roi"],
            "hit_rate": m["hit_rate"],
            "settled": m["settled"],
        }
        for m in report["models"]
    ]


def _read(cell: Cell, out: Path) -> list[dict[str, Any]] | None:
    path = out / cell.folder / "REPORT.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cell_figures(cell.format, report)


def merged_report(
    config: Path, out: Path, cells: Sequence[Cell], results: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Return the sweep's REPORT.json: every cell's key, outcome and figures, and the board.

    No timings: the same sweep over the same data gives the same report, however
    its cells were spread over workers.
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
                "figures": figures if ok else None,
            }
        )
        for row in figures or []:
            board.append({**cell.key, **_board_row(cell.format, row)})
    return {
        "disclaimer": DISCLAIMER,
        "config": str(config),
        "cells_total": len(entries),
        "cells_failed": sum(1 for e in entries if e["status"] == "failed"),
        "cells": entries,
        "board": board,
    }


def _board_row(fmt: str, row: dict[str, Any]) -> dict[str, Any]:
    if fmt == "weights":
        detail = f"drawdown {row['max_drawdown']}%, {row['trades']} trades"
        return {"agent": row["agent"], "rank": row["rank"], "return": row["season_return"],
                "detail": detail}  # fmt: skip
    if fmt == "thesis":
        detail = f"drawdown {row['max_drawdown']}%, {row['trades']} trades"
        return {"agent": row["agent"], "rank": row["rank"], "return": row["return"],
                "detail": detail}  # fmt: skip
    detail = f"hit rate {row['hit_rate']}%, {row['settled']} settled"
    return {"agent": row["agent"], "rank": row["rank"], "return": row["roi"], "detail": detail}


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
