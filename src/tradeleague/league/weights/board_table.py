"""A weights division's table for the terminal: ranks, values, the luck columns and lines."""

from __future__ import annotations

from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.formats.weights import Division, TableRow
from tradeleague.formats.weights.luck import TEST_TEXT, TableLuck
from tradeleague.league.weights.report import season_luck
from tradeleague.league.weights.state import SeasonState
from tradeleague.money import format_usd
from tradeleague.terminal.alpha import ALPHA_TEXT, alpha_cells

__all__ = ["HOUSE_MODEL_NOTE", "render_table"]


HOUSE_MODEL_NOTE = (
    "The house model (SmolLM2-135M on this CPU) is a format-valid baseline, not a strategist."
)
"""Said on every table the house model plays in (issue 3: plainly, on the board)."""


def render_table(
    state: SeasonState,
    division: Division,
    luck: TableLuck | None = None,
    *,
    limit: int | None = None,
) -> Table:
    """Return ``division``'s table for the terminal (W-RNK-3, W-SEA-3, ST-1, ST-2, C-1).

    Beside each agent: whether its result is told apart from cash and from
    buy-and-hold of the benchmark (``vs cash``, ``vs B&H``: better than, worse
    than or not distinguishable from it, with the p-value); the caption holds the
    luckiest-of-N line (the no-skill null), the rounds it rests on and the stated test. Pass
    ``luck`` (``season_luck(state, division)``) when it is already computed. ``limit``
    keeps the table's first rows only (the caller says where the rest are).
    """
    rows: list[TableRow] = state.table(division)
    if limit is not None:
        rows = rows[:limit]
    luck = season_luck(state, division) if luck is None else luck
    title = f"Weights league, {division.value} division: season {state.season_id}"
    if state.synthetic:
        title += "  [bold yellow](SYNTHETIC market)[/]"
    caption = (
        f"{luck.caption}\n{TEST_TEXT} B&H: {luck.benchmark}, held from each agent's first "
        f"entry.\n{ALPHA_TEXT}\nScoring {state.preset.scoring_version}. {DISCLAIMER}"
    )
    if any(
        a.division is division and a.spec.split(",")[0].split("=")[-1].startswith("local:")
        for a in state.agents.values()
    ):
        caption = f"{HOUSE_MODEL_NOTE}\n{caption}"
    table = Table(title=title, caption=caption)
    for column in ("rank", "agent", "value (USD)", "return", "max drawdown", "trades", "decisions"):
        table.add_column(column, justify="left" if column == "agent" else "right", no_wrap=True)
    table.add_column("vs cash", justify="left")
    table.add_column("vs B&H", justify="left")
    table.add_column("beta", justify="right", no_wrap=True)
    table.add_column("alpha/yr (95%)", justify="right")
    table.add_column("unranked because", justify="left")
    for row in rows:
        verdicts = luck.rows[row.agent]
        table.add_row(
            "-" if row.rank is None else str(row.rank),
            row.name,
            format_usd(row.value),
            f"{row.season_return:+.2f}%",
            f"{row.max_drawdown:.2f}%",
            str(row.trades),
            f"{row.decisions}/{row.entries}",
            verdicts.vs_cash.words("cash"),
            verdicts.vs_buy_and_hold.words("buy-and-hold"),
            *alpha_cells(verdicts.alpha_payload()),
            "" if row.unranked_reason is None else row.unranked_reason.value,
        )
    return table
