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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeleague.errors import ConfigError
from tradeleague.league.results import (
    ResultsPart,
    season_rows,
    sweep_seasons,
    sweep_windows,
    with_models,
)
from tradeleague.plugin import formats
from tradeleague.stats.decay import DECAY_METHOD, ModelDecay, decay, reference
from tradeleague.stats.rating import Rating, SeasonResult, rate

if TYPE_CHECKING:
    from tradeleague.store import Store

__all__ = [
    "DEFAULT_SEED",
    "WindowDecay",
    "decay_payload",
    "results_parts",
    "store_ratings",
    "sweep_decay",
    "sweep_ratings",
]

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
    out: Path,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = 10_000,
    only: str | None = None,
    models: Mapping[str, str] | None = None,
) -> dict[str, Rating]:
    """Return the rating of each format in the sweep at ``out``, in the registry's order.

    Raises
    ------
    ConfigError
        ``out`` is not a finished sweep's folder, or a cell's report is unreadable.
    """
    rows = sweep_seasons(out, results_parts(only), models)
    ordered = {key: rows[key] for key in results_parts(only) if key in rows}
    return _rated(ordered, seed, resamples)


def store_ratings(
    store: Store,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = 10_000,
    only: str | None = None,
    models: Mapping[str, str] | None = None,
) -> dict[str, Rating]:
    """Return the rating of each format's seasons in ``store`` (formats with none left out).

    ``models`` (a models file's cutoffs) marks agents whose record gave no cutoff.
    """
    rows = {
        key: [
            row
            for season in part.seasons(store)
            for row in season_rows(season.season, with_models(season, models))
        ]
        for key, part in results_parts(only).items()
    }
    return _rated(rows, seed, resamples)


@dataclass(frozen=True, slots=True)
class WindowDecay:
    """A format's alpha decay over a sweep's windows: the labels, the reference, each model."""

    seed: int
    resamples: int
    labels: tuple[str, ...]
    reference: str
    windows: dict[str, tuple[str, ...]]
    models: tuple[ModelDecay, ...]


def sweep_decay(
    out: Path,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = 10_000,
    only: str | None = None,
) -> dict[str, WindowDecay]:
    """Return each format's alpha per window and decay over the sweep at ``out`` (`stats.decay`).

    Formats whose seasons fall in no window, or whose reports carry no alpha, are left out.

    Raises
    ------
    ConfigError
        ``out`` is not a finished sweep's folder, or its sweep named no window.
    """
    windows = sweep_windows(out)
    labels = tuple(windows)
    of_season = {season: label for label, seasons in windows.items() for season in seasons}
    rows = sweep_seasons(out, results_parts(only))
    found: dict[str, WindowDecay] = {}
    for key in results_parts(only):
        models = decay(rows.get(key, []), of_season, labels, seed=seed, resamples=resamples)
        if models:
            found[key] = WindowDecay(
                seed,
                resamples,
                labels,
                reference(labels),
                {k: tuple(v) for k, v in windows.items()},
                models,
            )
    return found


def _figure(low: float | None, high: float | None) -> list[float] | None:
    return None if low is None or high is None else [low, high]


def decay_payload(found: WindowDecay) -> dict[str, Any]:
    """Return a format's decay as JSON: exact values (annualised alpha, fractions of one)."""
    return {
        "method": DECAY_METHOD,
        "seed": found.seed,
        "resamples": found.resamples,
        "windows": {label: list(seasons) for label, seasons in found.windows.items()},
        "reference": found.reference,
        "models": [
            {
                "model": m.model,
                "windows": {
                    w.window: {
                        "seasons": w.seasons,
                        "alpha": w.mean,
                        "interval": _figure(w.low, w.high),
                    }
                    for w in m.windows
                },
                "decay": [
                    {
                        "window": d.window,
                        "minus": found.reference,
                        "difference": d.difference,
                        "interval": _figure(d.low, d.high),
                        "verdict": d.outcome.value,
                    }
                    for d in m.decays
                ],
            }
            for m in found.models
        ],
    }
