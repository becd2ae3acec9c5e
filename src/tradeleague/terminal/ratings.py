"""A rating as a person reads it: one table of models, one of pairs (percent, ST-3 rounding)."""

from __future__ import annotations

from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.stats.decay import ModelDecay
from tradeleague.stats.rating import Interval, Rating
from tradeleague.stats.rounding import percent

__all__ = [
    "CUTOFF_WORDS",
    "DECAY_WORDS",
    "VERDICT_WORDS",
    "decay_table",
    "difference_text",
    "interval_text",
    "p_text",
    "rating_tables",
]

VERDICT_WORDS = {
    "better": "better",
    "worse": "worse",
    "not_distinguishable": "not distinguishable",
}
"""A pair's verdict as the terminal and the pages say it (the JSON says the key)."""


CUTOFF_WORDS = {
    "before_cutoff": "before cutoff: may reflect memory",
    "after_cutoff": "after cutoff",
    "cutoff_unknown": "cutoff unknown",
    "mixed": "mixed: some seasons before cutoff",
}
"""A rating row's training-cutoff status as the terminal says it (the JSON says the key)."""

DECAY_WORDS = {
    "worse": "alpha fell: distinguishable from zero",
    "better": "alpha rose: distinguishable from zero",
    "not_distinguishable": "not distinguishable from zero",
    "too_few": "too few seasons for an interval",
}
"""A decay's verdict as the terminal says it (the JSON says the key)."""


def _alpha_text(mean: float, low: float | None, high: float | None) -> str:
    text = f"{percent(mean):+}%"
    if low is None or high is None:
        return f"{text} (one season: no interval)"
    return f"{text} [{percent(low):+}, {percent(high):+}]"


def decay_table(
    models: tuple[ModelDecay, ...], labels: tuple[str, ...], reference: str, title: str
) -> Table:
    """Return each model's annualised alpha per window and its decay against ``reference``."""
    others = [label for label in labels if label != reference]
    table = Table(
        title=f"{title}: alpha per window and its decay ({', '.join(others)} minus {reference})",
        caption="annualised alpha, mean over seasons, 95% bootstrap interval over seasons; "
        + DISCLAIMER,
    )
    table.add_column("model")
    for label in labels:
        table.add_column(f"alpha/yr: {label}", no_wrap=True)
    for label in others:
        table.add_column(f"{label} minus {reference}", no_wrap=True)
        table.add_column("verdict")
    for m in models:
        cells = [m.model]
        shown = {w.window: w for w in m.windows}
        for label in labels:
            w = shown.get(label)
            cells.append("-" if w is None else _alpha_text(w.mean, w.low, w.high))
        decays = {d.window: d for d in m.decays}
        for label in others:
            d = decays.get(label)
            if d is None:
                cells += ["-", "no seasons in both windows"]
            else:
                cells += [_alpha_text(d.difference, d.low, d.high), DECAY_WORDS[d.outcome.value]]
        table.add_row(*cells)
    return table


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
        "training cutoff",
    ):
        models.add_column(column, no_wrap=column != "model")
    for m in rating.models:
        models.add_row(
            m.model,
            str(m.seasons),
            str(m.runs),
            interval_text(m.vs_cash),
            interval_text(m.vs_benchmark),
            CUTOFF_WORDS.get(m.cutoff or "", "not a model"),
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
