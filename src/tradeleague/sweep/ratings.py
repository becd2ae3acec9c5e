"""A sweep's ratings: every format's cells pooled per model (`tradeleague.stats.rating`).

A season of the sweep is one season to resample, however many rosters and
seeds ran it: they share its market and period (a seed varies only the seeded
agents' draws). Each format's ``results`` part reads the cell's
REPORT.json (`tradeleague.league.results.ResultsPart`), and the agents are
rated as their models, per format. Formats are rated apart: their returns are
not of the same kind.
"""

from __future__ import annotations

from pathlib import Path

from tradeleague.errors import ConfigError
from tradeleague.league.results import ResultsPart, sweep_seasons
from tradeleague.plugin import formats
from tradeleague.stats.rating import Rating, rate

__all__ = ["DEFAULT_SEED", "results_parts", "sweep_ratings"]

DEFAULT_SEED = 0
"""The resampling seed when none is given."""


def results_parts(only: str | None = None) -> dict[str, ResultsPart]:
    """Return the ``results`` part of every installed format that has one (or of ``only``).

    Raises
    ------
    ConfigError
        ``only`` is not a format with ratings; the message lists those that are.
    """
    parts = {f.key: f.part("results") for f in formats() if f.has("results")}
    if only is None:
        return parts
    if only not in parts:
        raise ConfigError(f"--format {only!r} has no ratings; give one of: {', '.join(parts)}")
    return {only: parts[only]}


def sweep_ratings(
    out: Path, *, seed: int = DEFAULT_SEED, resamples: int = 10_000, only: str | None = None
) -> dict[str, Rating]:
    """Return the rating of each format in the sweep at ``out``, in the registry's order.

    Raises
    ------
    ConfigError
        ``out`` is not a finished sweep's folder, or a cell's report is unreadable.
    """
    rows = sweep_seasons(out, results_parts(only))
    return {key: rate(found, seed=seed, resamples=resamples) for key, found in rows.items()}
