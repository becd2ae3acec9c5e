"""The direction arena's part of ``tradeleague sweep`` (`tradeleague.sweep.plugin.SweepPart`).

A ``[direction.seasons.NAME]`` table holds ``market``, ``start``, ``end`` (times)
and optionally ``payout``; each cell is ``replay direction`` with them, into
the cell's own store's ``direction`` stream. The merged board shows each
model's ROI, hit rate and settled calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tradeleague.league.direction.plugin import FORMAT
from tradeleague.sweep.plugin import BoardRow, SeasonTable, iso_moment

__all__ = ["SWEEP", "DirectionSweep"]


@dataclass(frozen=True, slots=True)
class DirectionSweep:
    """Cells of ``replay direction``, and the board rows of their reports."""

    season_keys: tuple[str, ...] = ("market", "start", "end", "payout")

    def season_options(self, season: SeasonTable) -> list[str]:
        """Return ``--market``, ``--start``, ``--end``, ``--payout`` and ``--stream``."""
        from tradeleague.formats.direction.preset import FORMAT as STREAM

        args = ["--market", season.folder("market")]
        first, last = season.moment("start"), season.moment("end")
        if last <= first:
            raise season.error(f"end in {season.where} is not after start")
        args += ["--start", iso_moment(first), "--end", iso_moment(last)]
        payout = season.get("payout", 80)
        if isinstance(payout, bool) or not isinstance(payout, int) or not 0 <= payout <= 1000:
            raise season.error(f"payout in {season.where} must be a whole percent from 0 to 1000")
        return [*args, "--payout", str(payout), "--stream", STREAM]

    def check_roster(self, specs: list[str]) -> None:
        """Build the agents once with the replay's own check, calling nothing."""
        from tradeleague.agents.spec import parse_agent_spec
        from tradeleague.league.direction.replay_run import check_roster

        check_roster([parse_agent_spec(spec) for spec in specs])

    def replay(self, argv: Sequence[str]) -> int:
        """Run ``replay direction *argv`` in this process; return its exit status."""
        from tradeleague.league.direction.commands import register_replay
        from tradeleague.terminal.invoke import run_replay_command

        return run_replay_command(register_replay, FORMAT.key, argv)

    def figures(self, report: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Return each model's rank, balance, ROI, hit rate and settled calls."""
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

    def board_row(self, figures: Mapping[str, Any]) -> BoardRow:
        """Return the row: the ROI, with the hit rate and settled calls as its detail."""
        detail = f"hit rate {figures['hit_rate']}%, {figures['settled']} settled"
        return BoardRow(figures["agent"], figures["rank"], figures["roi"], detail)


SWEEP: Final = DirectionSweep()
"""The part the ``direction`` format names as ``sweep``."""
