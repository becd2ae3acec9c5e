"""The thesis league's board for the terminal: every metric, its counts and the verdicts."""

from __future__ import annotations

from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.stats.verdicts import verdict_words
from tradeleague.terminal.alpha import ALPHA_TEXT, alpha_cells
from tradeleague.web.formatting import drawdown

__all__ = ["board_table"]


def board_table(rows: list[dict[str, object]]) -> Table:
    """Return the board as a table: every metric, its counts (ST-1) and the verdicts (ST-2).

    The win rate rests on the closed trades, the others on the trades and decisions.
    """
    table = Table(title="Thesis league board")
    heads = (
        "rank", "name", "return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure",
        "trades", "closed_trades", "decisions", "vs_cash", "vs_spy", "beta", "alpha_yr",
        "unranked_text",
    )  # fmt: skip
    shown = {
        "vs_cash": "vs cash", "vs_spy": "vs SPY", "unranked_text": "unranked because",
        "beta": "beta vs SPY", "alpha_yr": "alpha/yr (95%)",
    }  # fmt: skip
    for head in heads:
        table.add_column(shown.get(head, head.replace("_", " ")))
    for row in rows:
        table.add_row(*(_cell(row, h) for h in heads))
    luck = rows[0].get("luckiest_of_n") if rows else None
    line = (
        f"{luck}% (the expected best of {len(rows)} coin flippers simulated under the rules)"
        if luck is not None
        else "not simulated (the season's folders are not at hand)"
    )
    table.caption = (
        f"Luckiest of {len(rows)} agents with no skill: {line}.\n"
        "Return, max drawdown, win rate and exposure in %. vs cash, vs SPY: a paired bootstrap "
        "over the daily returns, 5% level; better or worse only when the difference is "
        "distinguishable. An agent that held no position is listed after the ranked ones.\n"
        + ALPHA_TEXT
        + "\n"
        + DISCLAIMER
    )
    return table


_BASELINES = {"vs_cash": "cash", "vs_spy": "holding SPY"}


def _cell(row: dict[str, object], head: str) -> str:
    """Return a board cell: a verdict in words, a missing figure as "-"."""
    if head in ("beta", "alpha_yr"):
        fit = row.get("alpha")
        beta, alpha = alpha_cells(fit if isinstance(fit, dict) else None)
        return beta if head == "beta" else alpha
    value = row[head]
    if head == "name":
        return str(value) + (" (agentic)" if row.get("agentic") else "")
    if head in _BASELINES:
        return verdict_words(str(value), _BASELINES[head])
    if head == "unranked_text":
        return "" if value is None else str(value)
    if head == "max_drawdown" and value is not None:
        return drawdown(value, unit=False)  # a fall, negative, as on every page
    return "-" if value is None else str(value)
