"""A rating as a person reads it: one table of models, one of pairs (percent, ST-3 rounding)."""

from __future__ import annotations

from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.stats.rating import Interval, Rating
from tradeleague.stats.rounding import percent

__all__ = ["VERDICT_WORDS", "difference_text", "interval_text", "p_text", "rating_tables"]

VERDICT_WORDS = {
    "better": "better",
    "worse": "worse",
    "not_distinguishable": "not distinguishable",
}
"""A pair's verdict as the terminal and the pages say it (the JSON says the key)."""


def interval_text(interval: Interval | None) -> str:
    """Return ``+1.25% [-0.50, +3.00]`` (a mean excess and its 95% interval), or ``-``."""
    if interval is None:
        return "-"
    mean = f"{percent(interval.mean):+}%"
    if interval.low is None or interval.high is None:
        return f"{mean} (one season: no interval)"
    return f"{mean} [{percent(interval.low):+}, {percent(interval.high):+}]"


def p_text(value: float) -> str:
    """Return a p-value as the tables show it (four places)."""
    return f"{value:.4f}"


def difference_text(value: float) -> str:
    """Return a difference of returns (a fraction of one) as a signed percent, ``+0.31%``."""
    return f"{percent(value):+}%"


def rating_tables(rating: Rating, title: str) -> tuple[Table, Table]:
    """Return the models' table (best mean excess over cash first) and the pairs' table."""
    models = Table(title=f"{title}: rating across seasons", caption=DISCLAIMER)
    for column in (
        "model",
        "seasons",
        "runs",
        "vs cash (95% interval)",
        "vs benchmark (95% interval)",
    ):
        models.add_column(column, no_wrap=column != "model")
    for m in rating.models:
        models.add_row(
            m.model,
            str(m.seasons),
            str(m.runs),
            interval_text(m.vs_cash),
            interval_text(m.vs_benchmark),
        )
    pairs = Table(
        title=f"{title}: which models differ (Holm-corrected at 5%)",
        caption="randomisation test, paired over the seasons both played, else unpaired; "
        "the verdict is of the first model against the second",
    )
    for column in ("model", "against", "seasons shared", "difference", "p", "p (Holm)", "verdict"):
        pairs.add_column(column)
    for p in rating.pairs:
        pairs.add_row(
            p.a,
            p.b,
            str(p.shared),
            difference_text(p.difference),
            p_text(p.p_value),
            p_text(p.p_holm),
            VERDICT_WORDS[p.verdict],
        )
    return models, pairs
