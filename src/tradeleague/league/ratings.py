"""Ratings of a format's models across seasons, from a sweep's folder or from a store.

Each installed format with a ``results`` part (`tradeleague.league.results.ResultsPart`)
gives its seasons' per-agent results; the agents are rated as their models,
per format (`tradeleague.stats.rating`): formats are rated apart, their
returns are not of the same kind.

In a sweep, a season is the sweep's season, however many rosters and seeds
ran it: they share its market and period (a seed varies only the seeded
agents' draws), so they are one season to resample.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tradeleague.errors import ConfigError
from tradeleague.league.results import ResultsPart, season_rows, sweep_seasons
from tradeleague.plugin import formats
from tradeleague.stats.rating import Rating, SeasonResult, rate

if TYPE_CHECKING:
    from tradeleague.store import Store

__all__ = ["DEFAULT_SEED", "results_parts", "store_ratings", "sweep_ratings"]

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


def _rated(rows: dict[str, list[SeasonResult]], seed: int, resamples: int) -> dict[str, Rating]:
    return {
        key: rate(found, seed=seed, resamples=resamples) for key, found in rows.items() if found
    }


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
    ordered = {key: rows[key] for key in results_parts(only) if key in rows}
    return _rated(ordered, seed, resamples)


def store_ratings(
    store: Store, *, seed: int = DEFAULT_SEED, resamples: int = 10_000, only: str | None = None
) -> dict[str, Rating]:
    """Return the rating of each format's seasons in ``store`` (formats with none left out)."""
    rows = {
        key: [row for season in part.seasons(store) for row in season_rows(season.season, season)]
        for key, part in results_parts(only).items()
    }
    return _rated(rows, seed, resamples)
