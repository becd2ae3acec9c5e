"""The inference-cost table every replay prints under its board (C-5).

One row per agent of the board: calls, tokens in and out, what they cost, the
cost per decision, median and 95th-percentile latency, and the paper return
beside the return net of that cost. An unpriced cost reads "unpriced", never
0; an agent that made no model call reads "0 (no model calls)".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from rich.table import Table

from tradeleague.llm.costs import cost_words

__all__ = ["cost_table"]


def _ms(value: object) -> str:
    return "-" if value is None else f"{value:,} ms"


def cost_table(
    costs: Mapping[str, Any],
    names: Mapping[str, str] | None = None,
    *,
    shown: Collection[str] | None = None,
) -> Table:
    """Return REPORT.json's ``costs`` section (``league.costs.costs_payload``) as a table.

    ``names`` shows an agent id by its name where they differ; ``shown`` keeps
    only these agents' rows (the caller says where the rest are).
    """
    version = costs["pricing_version"]
    caption = (
        f"Prices: table of {version}, USD per call rounded up to the micro-dollar."
        if costs["priced"]
        else "No price table given (--prices FILE): every model is unpriced."
    )
    table = Table(title="Inference cost", caption=caption)
    for head in ("agent", "calls", "tokens in", "tokens out", "cost (USD)", "per decision",
                 "latency median", "latency p95", "return", "net of cost"):  # fmt: skip
        table.add_column(head, justify="left" if head == "agent" else "right")
    for agent, row in costs["agents"].items():
        if shown is not None and agent not in shown:
            continue
        per = row["cost_per_decision_usd"]
        net = row["net_return"]
        table.add_row(
            (names or {}).get(agent, agent),
            str(row["calls"]),
            f"{row['input_tokens']:,}",
            f"{row['output_tokens']:,}",
            cost_words(row),
            "unpriced" if per is None and row["cost_usd"] is None else (per or "-"),
            _ms(row["latency_median_ms"]),
            _ms(row["latency_p95_ms"]),
            "-" if row["return"] is None else f"{row['return']}%",
            "unpriced" if net is None else f"{net}%",
        )
    return table
