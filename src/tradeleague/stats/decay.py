"""Alpha decay between labelled windows: each model's alpha per window, and the difference.

Look-Ahead-Bench's question: does a model keep its edge in a period after its
training cutoff ("out") that it showed in one inside it ("in")? The input is
the rating's (`tradeleague.stats.rating.SeasonResult`, each with its season's
annualised alpha, `tradeleague.stats.alpha`) and a label per season (its
window). The method, exactly:

1. **One figure per model per season**: the mean alpha of the model's runs in
   the season (rosters and seeds share the season's market); runs without an
   alpha (too few steps to fit) are left out, and a season with none is too.
2. **Per window**: the mean of the model's season figures in the window, with
   a 95% percentile bootstrap interval resampling whole seasons (none with one
   season).
3. **Decay**: for each window other than the reference (``in`` where a window
   is so named, else the first named), its mean minus the reference's (so
   ``out`` minus ``in``: negative when the model lost alpha out of sample),
   with a 95% interval from resampling each window's seasons independently.
   The decay is *distinguishable from zero* when the interval excludes zero:
   then ``worse`` (alpha fell) or ``better`` (it rose); else
   ``not_distinguishable``; with fewer than two seasons in either window,
   ``too_few``.

Each model's and window's draws come from a generator seeded by ``(seed, the
model, the window)``, so the result depends only on the seasons and the seed:
the same command gives the same bytes.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tradeleague.stats.rating import SeasonResult
from tradeleague.stats.verdicts import Outcome

__all__ = ["DECAY_METHOD", "REFERENCE", "Decay", "ModelDecay", "WindowAlpha", "decay", "reference"]

REFERENCE = "in"
"""The window the others are compared with, where a window has this label."""

DECAY_METHOD = (
    "per model: the mean annualised alpha of its seasons in each window (each season the mean "
    "of its runs), with a 95% bootstrap interval resampling whole seasons; decay: each window's "
    "mean minus the reference window's, its 95% interval from resampling each window's seasons "
    "independently; distinguishable from zero when the interval excludes zero"
)
"""How the decay is computed, as the JSON and the tables state it."""

_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class WindowAlpha:
    """A model's alpha in one window: seasons, mean (a fraction of one a year), interval."""

    window: str
    seasons: int
    mean: float
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class Decay:
    """A window's mean alpha minus the reference window's, with its interval and verdict."""

    window: str
    difference: float
    low: float | None
    high: float | None
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class ModelDecay:
    """One model's alpha per window and its decay against the reference window."""

    model: str
    windows: tuple[WindowAlpha, ...]
    decays: tuple[Decay, ...]


def reference(labels: Sequence[str]) -> str:
    """Return the reference window: ``in`` when named, else the first label.

    Raises
    ------
    ValueError
        With no label.
    """
    if not labels:
        raise ValueError("no window to compare")
    return REFERENCE if REFERENCE in labels else labels[0]


def _rng(seed: int, *names: str) -> np.random.Generator:
    words = [seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF]
    for name in names:
        digest = hashlib.sha256(name.encode("utf-8")).digest()
        words += [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 16, 4)]
    return np.random.default_rng(words)


def _means(values: npt.NDArray[np.float64], rng: np.random.Generator, resamples: int) -> Any:
    index = rng.integers(0, values.size, size=(resamples, values.size))
    return values[index].mean(axis=1)


def _tails(draws: npt.NDArray[np.float64]) -> tuple[float, float]:
    tail = (1 - _CONFIDENCE) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def _window(
    label: str, values: npt.NDArray[np.float64], rng: np.random.Generator, resamples: int
) -> WindowAlpha:
    mean = float(values.mean())
    if values.size < 2:
        return WindowAlpha(label, int(values.size), mean, None, None)
    low, high = _tails(_means(values, rng, resamples))
    return WindowAlpha(label, int(values.size), mean, low, high)


def _decay(
    label: str,
    ref: npt.NDArray[np.float64],
    other: npt.NDArray[np.float64],
    rng: np.random.Generator,
    resamples: int,
) -> Decay:
    difference = float(other.mean() - ref.mean())
    if ref.size < 2 or other.size < 2:
        return Decay(label, difference, None, None, Outcome.TOO_FEW)
    draws = _means(other, rng, resamples) - _means(ref, rng, resamples)
    low, high = _tails(draws)
    outcome = Outcome.NOT_DISTINGUISHABLE
    if low > 0:
        outcome = Outcome.BETTER
    elif high < 0:
        outcome = Outcome.WORSE
    return Decay(label, difference, low, high, outcome)


def decay(
    results: Iterable[SeasonResult],
    windows: Mapping[str, str],
    labels: Sequence[str],
    *,
    seed: int,
    resamples: int = 10_000,
) -> tuple[ModelDecay, ...]:
    """Return each model's alpha per window and its decay (the module's method), by model name.

    Parameters
    ----------
    results
        One result per agent per season (its ``alpha`` read; ``None`` left out).
    windows
        Each season's window label; seasons without one are left out.
    labels
        The windows in the order they were named (`reference` picks the reference).
    seed, resamples
        The bootstrap's seed and resamples per interval.

    Raises
    ------
    ValueError
        For fewer than one resample, no label, or a non-finite alpha.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be 1 or more, not {resamples}")
    ref = reference(labels)
    runs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        if r.alpha is None or r.season not in windows:
            continue
        if not np.isfinite(r.alpha):
            raise ValueError(f"the alpha of {r.model!r} in {r.season!r} must be finite")
        runs[r.model][r.season].append(r.alpha)
    out: list[ModelDecay] = []
    for model in sorted(runs):
        by_window: dict[str, list[float]] = defaultdict(list)
        for season in sorted(runs[model]):
            by_window[windows[season]].append(float(np.mean(runs[model][season])))
        figures = {
            label: np.asarray(by_window[label], dtype=np.float64)
            for label in labels
            if by_window.get(label)
        }
        shown = tuple(
            _window(label, values, _rng(seed, model, label), resamples)
            for label, values in figures.items()
        )
        decays: tuple[Decay, ...] = ()
        if ref in figures:
            decays = tuple(
                _decay(label, figures[ref], values, _rng(seed, model, ref, label), resamples)
                for label, values in figures.items()
                if label != ref
            )
        out.append(ModelDecay(model, shown, decays))
    return tuple(out)
