"""The toy's part of ``tradeleague sweep``: ``[toy.seasons.NAME]`` holds ``season`` and ``days``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tradeleague.sweep.plugin import BoardRow, SeasonTable
from tradeleague.terminal.invoke import run_replay_command

from .commands import register_replay, roster_of
from .season import KEY

__all__ = ["SWEEP", "ToySweep"]


class ToySweep:
    """Cells of ``replay toy``, and the board rows of their reports."""

    season_keys: tuple[str, ...] = ("season", "days")

    def season_options(self, season: SeasonTable) -> list[str]:
        """Return ``--season`` and ``--days``."""
        days = season.get("days", 5)
        if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 365:
            raise season.error(f"days in {season.where} must be a whole number, 1 to 365")
        return ["--season", season.text("season"), "--days", str(days)]

    def check_roster(self, specs: list[str]) -> None:
        """Check the roster as the replay does."""
        roster_of(specs)

    def replay(self, argv: Sequence[str]) -> int:
        """Run ``replay toy *argv`` in this process."""
        return run_replay_command(register_replay, KEY, argv)

    def figures(self, report: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Return each agent's rank, return (ppm) and decisions."""
        return [
            {
                "agent": r["agent"],
                "rank": r["rank"],
                "return_ppm": r["return_ppm"],
                "decisions": r["decisions"],
            }
            for r in report["board"]
        ]

    def board_row(self, figures: Mapping[str, Any]) -> BoardRow:
        """Return the row: the return in percent, the decisions as its detail."""
        percent = f"{figures['return_ppm'] / 10_000:.2f}"
        return BoardRow(figures["agent"], figures["rank"], percent, f"{figures['decisions']} picks")


SWEEP = ToySweep()
