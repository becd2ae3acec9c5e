"""The thesis league's board for the terminal: every metric, its counts and the verdicts."""

from __future__ import annotations

from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER

__all__ = ["board_table"]


def board_table(rows: list[dict[str, object]]) -> Table:
    """Return the board as a table: every metric, its counts (ST-1) and the verdicts (ST-2).

    The win rate rests on the closed trades, the others on the trades and decisions.
    """
    table = Table(title="Thesis league board")
    heads = (
        "rank", "name", "return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure",
        "trades", "closed_trades", "decisions", "differs_from_cash", "differs_from_spy",
    )  # fmt: skip
    shown = {"differs_from_cash": "vs cash", "differs_from_spy": "vs SPY"}
    for head in heads:
        table.add_column(shown.get(head, head.replace("_", " ")))
    for row in rows:
        name = str(row["name"]) + (" (agentic)" if row.get("agentic") else "")
        cells = [_cell(row[h]) if h != "name" else name for h in heads]
        table.add_row(*cells)
    luck = rows[0].get("luckiest_of_n") if rows else None
    line = (
        f"{luck}% (the expected best of {len(rows)} coin flippers simulated under the rules)"
        if luck is not None
        else "not simulated (the season's folders are not at hand)"
    )
    table.caption = (
        f"Luckiest of {len(rows)} agents with no skill: {line}.\n"
        "Return, max drawdown, win rate and exposure in %. vs cash, vs SPY: whether the "
        "result is distinguishable from cash and from holding SPY (a paired bootstrap over the "
        'daily returns, 5% level): "differs" can be worse as well as better.\n' + DISCLAIMER
    )
    return table


def _cell(value: object) -> str:
    """Return a board cell: a verdict as "differs" or "no", a missing figure as "-"."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "differs" if value else "no"
    return str(value)
