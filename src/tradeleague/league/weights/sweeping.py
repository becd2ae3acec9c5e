"""The weights league's part of ``tradeleague sweep`` (`tradeleague.sweep.plugin.SweepPart`).

A ``[weights.seasons.NAME]`` table holds ``market``, ``start``, ``end`` and
optionally ``symbols`` and ``division``; each cell is ``replay weights`` with
them. The merged board shows each agent's season return, drawdown and trades.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tradeleague.league.weights.plugin import FORMAT
from tradeleague.sweep.plugin import BoardRow, SeasonTable

__all__ = ["SWEEP", "WeightsSweep"]

_SYMBOL = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_DIVISIONS = ("open", "pro")


@dataclass(frozen=True, slots=True)
class WeightsSweep:
    """Cells of ``replay weights``, and the board rows of their reports."""

    season_keys: tuple[str, ...] = ("market", "start", "end", "symbols", "division")

    def season_options(self, season: SeasonTable) -> list[str]:
        """Return ``--market``, ``--start``, ``--end``, ``--symbols`` and ``--division``."""
        args = ["--market", season.folder("market")]
        start, end = season.days()
        args += ["--start", start.isoformat(), "--end", end.isoformat()]
        if "symbols" in season:
            symbols = season.get("symbols")
            if (
                not isinstance(symbols, list)
                or not 0 < len(symbols) <= 500
                or not all(isinstance(s, str) and _SYMBOL.match(s) for s in symbols)
            ):
                raise season.error(
                    f'symbols in {season.where} must be a list of 1 to 500 symbols like "SPY"'
                )
            args += ["--symbols", ",".join(symbols)]
        division = season.get("division", "open")
        if division not in _DIVISIONS:
            raise season.error(f'division in {season.where} must be "open" or "pro"')
        return [*args, "--division", division]

    def check_roster(self, specs: list[str]) -> None:
        """Build the agents once with the replay's own check, calling nothing."""
        from tradeleague.league.weights.replay_run import check_roster

        check_roster(specs)

    def replay(self, argv: Sequence[str]) -> int:
        """Run ``replay weights *argv`` in this process; return its exit status."""
        from tradeleague.league.weights.commands import register_replay
        from tradeleague.terminal.invoke import run_replay_command

        return run_replay_command(register_replay, FORMAT.key, argv)

    def figures(self, report: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Return each agent's division, rank, season return, drawdown, trades, unranked reason."""
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

    def board_row(self, figures: Mapping[str, Any]) -> BoardRow:
        """Return the row: the season return, with the drawdown and trades as its detail."""
        detail = f"drawdown {figures['max_drawdown']}%, {figures['trades']} trades"
        return BoardRow(figures["agent"], figures["rank"], figures["season_return"], detail)


SWEEP: Final = WeightsSweep()
"""The part the ``weights`` format names as ``sweep``."""
