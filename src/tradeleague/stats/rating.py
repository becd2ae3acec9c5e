"""Rate models across seasons and seeds: mean excess return, its interval, and which pairs differ.

One season is mostly noise; a rating pools a model's seasons. The input is one
`SeasonResult` per agent per season: the agent's return over the season, the
return of cash and of the format's benchmark over the *same* period (all as
fractions of one). The method, exactly:

1. **One figure per model per season.** Agents are grouped by model (the
   caller names each agent's model: its model id, else its name). Every run
   of a model in one season (two prompts of one model, or the seeds and
   rosters of a sweep, which share the season's market) counts as one
   observation, their mean return: the market of a season is drawn once,
   however often it is replayed.
2. **Excess return.** Per season ``r - cash`` and ``r - benchmark`` (a season
   without a benchmark has no benchmark excess).
3. **Rating.** The mean excess over the model's seasons, with a 95% percentile
   bootstrap interval that resamples *whole seasons* with replacement
   (`tradeleague.stats.bootstrap.paired_bootstrap`, blocks of one season).
   One season has no interval. Each model's resamples come from a generator
   seeded by ``(seed, the model's name)``, so a model's interval depends on
   the seed and its own seasons, never on which other models are rated.
4. **Pairs.** For each pair of models: on the seasons both played (two or
   more), a paired sign-flip randomisation test of the per-season difference
   of their returns (cash and benchmark cancel in a shared season,
   `sign_flip_p`); with fewer shared seasons, an unpaired randomisation test
   of the difference of their mean excess over cash (`relabel_p`). Both are
   exact (every sign vector or split enumerated) up to 2**16 of them, so a
   handful of seasons can never look significant by resampling noise: two
   shared seasons give no p-value below 0.5. The p-values of all pairs are
   Holm-corrected (`holm`) and a pair is distinguishable when its corrected
   p-value is below 5%: then the one with the higher mean is ``"better"``,
   else the pair is ``"not_distinguishable"``.

Everything is a pure function of the results and the seed.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import numpy.typing as npt

from tradeleague.stats.bootstrap import paired_bootstrap

__all__ = [
    "LEVEL",
    "MIXED",
    "Interval",
    "ModelRating",
    "PairTest",
    "Rating",
    "SeasonResult",
    "holm",
    "rate",
    "relabel_p",
    "sign_flip_p",
]

LEVEL = 0.05
"""A pair is distinguishable when its Holm-corrected p-value is below this."""

_CONFIDENCE = 1.0 - LEVEL


@dataclass(frozen=True, slots=True, kw_only=True)
class SeasonResult:
    """One agent's season: its model, the season's key and three returns over the same period.

    Attributes
    ----------
    season
        The season's key; results with the same key shared one period and market.
    model
        The model the agent is rated as (its model id, else its name).
    return_
        The agent's return over the season, a fraction of one.
    cash
        Cash's return over the same period (0 where cash earns nothing).
    benchmark
        The benchmark's return over the same period; ``None`` where the format has none.
    cutoff
        The agent's training-cutoff status in the season (``before_cutoff``,
        ``after_cutoff``, ``cutoff_unknown``), ``None`` for a baseline.
    alpha
        The agent's annualised alpha in the season (a fraction of one), ``None``
        where none was fitted (`tradeleague.stats.decay` reads it).
    """

    season: str
    model: str
    return_: float
    cash: float
    benchmark: float | None
    cutoff: str | None = None
    alpha: float | None = None


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean excess return and its 95% bootstrap interval over seasons (``None`` with one)."""

    seasons: int
    mean: float
    low: float | None
    high: float | None


MIXED = "mixed"
"""A model's cutoff status when its runs differ (some seasons before its cutoff, some after)."""


@dataclass(frozen=True, slots=True)
class ModelRating:
    """One model's rating: its seasons, its runs, its mean excess over cash and the benchmark.

    ``cutoff`` is its runs' training-cutoff status when they all agree, ``MIXED``
    when they differ, ``None`` for a baseline (no run has one).
    """

    model: str
    seasons: int
    runs: int
    vs_cash: Interval
    vs_benchmark: Interval | None
    cutoff: str | None = None


@dataclass(frozen=True, slots=True)
class PairTest:
    """Two models compared (``a`` before ``b`` by name).

    ``difference`` is ``a``'s mean minus ``b``'s (over shared seasons when
    ``paired``); ``p_value`` is the randomisation test's, ``p_holm`` the same
    Holm-corrected across the rating's pairs; ``verdict`` is ``"better"``
    or ``"worse"`` (said of ``a``) or ``"not_distinguishable"``.
    """

    a: str
    b: str
    paired: bool
    shared: int
    difference: float
    p_value: float
    p_holm: float
    verdict: str


@dataclass(frozen=True, slots=True)
class Rating:
    """Every model's rating (best mean excess over cash first) and every pair's test."""

    seed: int
    resamples: int
    models: tuple[ModelRating, ...]
    pairs: tuple[PairTest, ...]


def holm(p_values: Sequence[float]) -> list[float]:
    """Return Holm's step-down adjusted p-values, in the order given.

    The ``k``-th smallest of ``m`` p-values is multiplied by ``m - k + 1``;
    each adjusted value is at least the one before it and at most 1.
    """
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _rng(seed: int, *names: str) -> np.random.Generator:
    words = [seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF]
    for name in names:
        digest = hashlib.sha256(name.encode("utf-8")).digest()
        words += [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 16, 4)]
    return np.random.default_rng(words)


@dataclass(frozen=True, slots=True)
class _Season:
    runs: int
    return_: float
    cash: float
    benchmark: float | None


def _by_model(results: Iterable[SeasonResult]) -> dict[str, dict[str, _Season]]:
    grouped: dict[str, dict[str, list[SeasonResult]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        if not np.isfinite(result.return_) or not np.isfinite(result.cash):
            raise ValueError(f"the returns of {result.model!r} in {result.season!r} must be finite")
        grouped[result.model][result.season].append(result)
    models: dict[str, dict[str, _Season]] = {}
    for model in sorted(grouped):
        seasons: dict[str, _Season] = {}
        for season in sorted(grouped[model]):
            rows = grouped[model][season]
            seasons[season] = _Season(
                len(rows),
                float(np.mean([r.return_ for r in rows])),
                rows[0].cash,
                rows[0].benchmark,
            )
        models[model] = seasons
    return models


def _cutoffs(results: Iterable[SeasonResult]) -> dict[str, str]:
    """Return each model's cutoff status: the one its runs share, else ``MIXED``."""
    found: dict[str, set[str]] = defaultdict(set)
    for result in results:
        if result.cutoff is not None:
            found[result.model].add(result.cutoff)
    return {m: next(iter(s)) if len(s) == 1 else MIXED for m, s in found.items()}


def _interval(
    returns: list[float], base: list[float], rng: np.random.Generator, resamples: int
) -> Interval:
    test = paired_bootstrap(returns, base, rng=rng, resamples=resamples, confidence=_CONFIDENCE)
    mean = float(np.mean(np.subtract(returns, base)))
    if test is None:
        return Interval(len(returns), mean, None, None)
    return Interval(len(returns), mean, test.ci_low, test.ci_high)


def _rate_model(model: str, seasons: dict[str, _Season], seed: int, resamples: int) -> ModelRating:
    rows = list(seasons.values())
    vs_cash = _interval(
        [s.return_ for s in rows], [s.cash for s in rows], _rng(seed, model, "cash"), resamples
    )
    marked = [s for s in rows if s.benchmark is not None]
    vs_benchmark = None
    if marked:
        vs_benchmark = _interval(
            [s.return_ for s in marked],
            [s.benchmark for s in marked if s.benchmark is not None],
            _rng(seed, model, "benchmark"),
            resamples,
        )
    return ModelRating(model, len(rows), sum(s.runs for s in rows), vs_cash, vs_benchmark)


_EXACT_LIMIT = 1 << 16
"""Up to this many sign flips or relabellings the randomisation test enumerates them all."""


def _tail(statistics: npt.NDArray[np.float64], observed: float) -> int:
    """Count the statistics at least as far from zero as ``observed`` (to float rounding)."""
    return int(np.count_nonzero(statistics >= observed - 1e-12 * observed))


def sign_flip_p(differences: Sequence[float], rng: np.random.Generator, resamples: int) -> float:
    """Return the two-sided p-value of a paired sign-flip randomisation test of mean zero.

    Under "the two are the same", each season's difference is as likely with
    either sign. All ``2**n`` sign vectors are enumerated when there are at
    most 2**16 (the p-value is then exact: the share of them whose mean is at
    least as far from zero as the observed one); beyond, ``resamples`` random
    sign vectors, with ``(1 + count) / (resamples + 1)``.
    """
    d = np.asarray(differences, dtype=np.float64)
    observed = abs(float(d.mean()))
    n = d.size
    if 1 << n <= _EXACT_LIMIT:
        signs = ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        return _tail(np.abs(signs @ d) / n, observed) / (1 << n)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, n))
    return (1 + _tail(np.abs(signs @ d) / n, observed)) / (resamples + 1)


def relabel_p(
    a: Sequence[float], b: Sequence[float], rng: np.random.Generator, resamples: int
) -> float:
    """Return the two-sided p-value of an unpaired randomisation test of equal means.

    Under "the two are the same", any ``len(a)`` of the pooled values are as
    likely to be ``a``'s. Every such split is enumerated when there are at
    most 2**16 (exact); beyond, ``resamples`` random splits, with
    ``(1 + count) / (resamples + 1)``.
    """
    pooled = np.asarray([*a, *b], dtype=np.float64)
    k, n = len(a), pooled.size
    observed = abs(float(np.mean(a) - np.mean(b)))
    total = pooled.sum()
    if math.comb(n, k) <= _EXACT_LIMIT:
        picks = np.asarray(list(combinations(range(n), k)), dtype=np.intp)
        sums = pooled[picks].sum(axis=1)
        return _tail(np.abs(sums / k - (total - sums) / (n - k)), observed) / len(picks)
    sums = np.asarray([pooled[rng.permutation(n)[:k]].sum() for _ in range(resamples)])
    return (1 + _tail(np.abs(sums / k - (total - sums) / (n - k)), observed)) / (resamples + 1)


def _pair(
    a: str, b: str, sa: dict[str, _Season], sb: dict[str, _Season], seed: int, resamples: int
) -> tuple[bool, int, float, float]:
    shared = [s for s in sa if s in sb]
    rng = _rng(seed, a, b)
    if len(shared) >= 2:
        d = [sa[s].return_ - sb[s].return_ for s in shared]
        return True, len(shared), float(np.mean(d)), sign_flip_p(d, rng, resamples)
    excess_a = [s.return_ - s.cash for s in sa.values()]
    excess_b = [s.return_ - s.cash for s in sb.values()]
    difference = float(np.mean(excess_a) - np.mean(excess_b))
    return False, len(shared), difference, relabel_p(excess_a, excess_b, rng, resamples)


def rate(results: Iterable[SeasonResult], *, seed: int, resamples: int = 10_000) -> Rating:
    """Rate every model in ``results`` and test every pair (the module's method).

    Parameters
    ----------
    results
        One result per agent per season; any order.
    seed
        Seeds every resample: the same results and seed give the same rating.
    resamples
        Bootstrap resamples per interval; random sign flips or splits per pair
        beyond 2**16 of them.

    Raises
    ------
    ValueError
        For a non-finite return or fewer than one resample.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be 1 or more, not {resamples}")
    results = list(results)
    models = _by_model(results)
    marks = _cutoffs(results)
    rated = [
        replace(_rate_model(m, seasons, seed, resamples), cutoff=marks.get(m))
        for m, seasons in models.items()
    ]
    rated.sort(key=lambda r: (-r.vs_cash.mean, r.model))
    raw = [
        (a, b, *_pair(a, b, models[a], models[b], seed, resamples))
        for a, b in combinations(sorted(models), 2)
    ]
    adjusted = holm([p for *_, p in raw])
    pairs = []
    for (a, b, paired, shared, difference, p_value), p_holm in zip(raw, adjusted, strict=True):
        verdict = "not_distinguishable"
        if p_holm < LEVEL:
            verdict = "better" if difference > 0 else "worse"
        pairs.append(PairTest(a, b, paired, shared, difference, p_value, p_holm, verdict))
    return Rating(seed, resamples, tuple(rated), tuple(pairs))
