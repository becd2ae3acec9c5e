"""The direction arena's board for the terminal, with its luck columns (D-SCO, D-LCK)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.formats.direction.board import UNRANKED_TEXT, Board, ModelRow
from tradeleague.formats.direction.publish import pct
from tradeleague.money import MICRO, format_usd

__all__ = ["board_table"]


def _rate(row: ModelRow) -> str:
    return "-" if row.hit_rate is None else f"{pct(row.hit_rate)}%"


def _skips(row: ModelRow, causes: Mapping[str, Counter[str]] | None) -> str:
    """Return the skip classes of ``row``, the provider faults beside ``timeout``.

    The seed's classes stay (a provider fault is a ``timeout`` skip: no answer
    came); the cause is shown beside it, e.g. ``timeout:12 (key_rejected 12)``.
    """
    faults = (causes or {}).get(row.entrant.name)
    parts = []
    for kind, count in row.skips.items():
        text = f"{kind}:{count}"
        if kind == "timeout" and faults:
            text += " (" + ", ".join(f"{c} {n}" for c, n in sorted(faults.items())) + ")"
        parts.append(text)
    return " ".join(parts) or "-"


def board_table(board: Board, causes: Mapping[str, Counter[str]] | None = None) -> Table:
    """Return the models' board as a Rich table, with the luck columns (D-SCO, D-LCK).

    Hit rates below break-even are greyed (D-SCO-6); the caption carries the
    break-even line, the luckiest-of-N line and the paper-trading line (C-1).
    ``causes`` (provider faults by class, per model) are shown beside the
    ``timeout`` skips. A model with no settled trade follows the ranked ones with
    its reason.
    """
    luck = "-" if board.luckiest is None else f"{pct(board.luckiest)}%"
    table = Table(
        title=f"Direction arena, season {board.season} ({board.rounds} rounds, "
        f"{board.void_rounds} void)",
        caption=f"Break-even hit rate {pct(board.break_even)}% at "
        f"{pct(board.payout_ppm / MICRO)}% payout; luckiest of {len(board.models)} coin flips "
        f"at {board.luckiest_trades} trades: {luck}.\n{DISCLAIMER}",
    )
    for column in ("#", "model", "provider", "tier", "balance", "ROI", "hit", "answer"):
        table.add_column(column, justify="left" if column in ("model", "provider") else "right")
    for column in ("settled", "W/L/D", "skips", "streak", "95% CI", "to prove"):
        table.add_column(column, justify="right")
    table.add_column("unranked because", justify="left")
    for row in board.models:
        ci = row.interval
        grey = board.below_break_even(row)
        skips = _skips(row, causes)
        table.add_row(
            "-" if row.rank is None else str(row.rank),
            row.entrant.name,
            row.entrant.provider,
            row.entrant.tier,
            format_usd(row.tally.balance),
            f"{pct(row.roi)}%",
            f"[dim]{_rate(row)}[/dim]" if grey else _rate(row),
            "-" if row.answer_rate is None else f"{pct(row.answer_rate)}%",
            str(row.tally.settled),
            f"{row.tally.wins}/{row.tally.losses}/{row.tally.draws}",
            skips,
            f"{row.streak:+d}",
            "-" if ci is None else f"{pct(ci.low)}-{pct(ci.high)}%",
            "-" if row.trades_to_prove is None else f"{row.trades_to_prove:,}",
            "" if row.unranked is None else UNRANKED_TEXT[row.unranked],
        )
    return table
