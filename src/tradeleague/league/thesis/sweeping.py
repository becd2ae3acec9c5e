"""The thesis league's part of ``tradeleague sweep`` (`tradeleague.sweep.plugin.SweepPart`).

A ``[thesis.seasons.NAME]`` table holds ``crypto``, ``stocks``, optionally
``stocks_hourly``, and ``start``, ``end``; each cell is ``replay thesis`` with
them. The merged board shows each agent's return, drawdown and trades.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tradeleague.league.thesis.plugin import FORMAT
from tradeleague.sweep.plugin import BoardRow, SeasonTable

__all__ = ["SWEEP", "ThesisSweep"]


@dataclass(frozen=True, slots=True)
class ThesisSweep:
    """Cells of ``replay thesis``, and the board rows of their reports."""

    season_keys: tuple[str, ...] = ("crypto", "stocks", "stocks_hourly", "start", "end")

    def season_options(self, season: SeasonTable) -> list[str]:
        """Return ``--crypto``, ``--stocks``, ``--stocks-hourly``, ``--start`` and ``--end``."""
        args = ["--crypto", season.folder("crypto"), "--stocks", season.folder("stocks")]
        if "stocks_hourly" in season:
            args += ["--stocks-hourly", season.folder("stocks_hourly")]
        start, end = season.days()
        return [*args, "--start", start.isoformat(), "--end", end.isoformat()]

    def check_roster(self, specs: list[str]) -> None:
        """Build the roster once with the replay's own check, calling nothing."""
        from tradeleague.league.thesis.replay_run import check_roster

        check_roster(specs, [])

    def replay(self, argv: Sequence[str]) -> int:
        """Run ``replay thesis *argv`` in this process; return its exit status."""
        from tradeleague.league.thesis.commands import register_replay
        from tradeleague.terminal.invoke import run_replay_command

        return run_replay_command(register_replay, FORMAT.key, argv)

    def figures(self, report: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Return each agent's rank, return, drawdown, Sharpe, win rate and trades."""
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

    def board_row(self, figures: Mapping[str, Any]) -> BoardRow:
        """Return the row: the return, with the drawdown and trades as its detail."""
        detail = f"drawdown {figures['max_drawdown']}%, {figures['trades']} trades"
        return BoardRow(figures["agent"], figures["rank"], figures["return"], detail)


SWEEP: Final = ThesisSweep()
"""The part the ``thesis`` format names as ``sweep``."""
