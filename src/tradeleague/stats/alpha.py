"""Market exposure (beta) and what is left (alpha), with a block-bootstrap interval.

A return is not skill: an agent fully in a rising benchmark beats cash with no
skill at all. Over the same steps, the agent's step returns ``a`` are fitted on
the benchmark's ``b`` by least squares,

    a_t = alpha + beta * b_t + e_t,   beta = cov(a, b) / var(b),
    alpha = mean(a) - beta * mean(b),

so ``beta`` is the exposure to the benchmark and ``alpha`` the mean return per
step that exposure does not explain. ``alpha`` is annualised by the steps a
year holds (``alpha * periods_per_year``, the same scale as the interval).

The interval resamples whole steps as pairs ``(a_t, b_t)`` in circular blocks
of ``block_length`` consecutive steps (default ``ceil(n ** (1/3))``: a short
autocorrelation stays inside a block), refits each resample, and takes the
2.5th and 97.5th percentiles of alpha and of beta. Alpha is *distinguishable
from zero* when its interval excludes zero; its sign then says which way
(``Outcome``, ``stats.verdicts``).

Pure: all randomness comes from the generator passed in (seeded from the
season by the caller), so the same inputs give the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, SupportsFloat

import numpy as np
import numpy.typing as npt

from tradeleague.stats.rounding import round_half_up
from tradeleague.stats.verdicts import Outcome

__all__ = ["ALPHA_NOTE", "AlphaBeta", "AlphaFit", "alpha_beta", "alpha_betas", "alpha_words"]

ALPHA_NOTE = (
    "Beta and alpha: a return is not skill, since an agent fully in a rising benchmark beats "
    "cash with none. Each agent's per-round returns are fitted on the benchmark's over the "
    "same rounds: beta is its exposure to the benchmark, alpha the return per round that "
    "exposure does not explain, annualised by the rounds a year holds (measured from the "
    "rounds' own spacing where the rounds are not daily). Both come with a 95% interval "
    "from a block bootstrap over the rounds (blocks of about the cube root of the rounds, "
    "2,000 resamples, seeded from the season and the agent, so the same season always "
    "shows the same interval). Alpha is called above or below zero only when its interval "
    "excludes zero."
)
"""Our decision on beta and alpha, as the methodology pages state it."""

_MIN_STEPS = 3
"""Fewer paired steps than this cannot fit a line and leave a residual."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AlphaBeta:
    """An agent's beta and alpha against a benchmark over the same steps.

    Attributes
    ----------
    steps
        Paired steps the fit rests on (ST-1).
    beta, beta_low, beta_high
        Exposure to the benchmark and its interval.
    alpha, alpha_low, alpha_high
        Mean return per step the exposure does not explain (a fraction), and its interval.
    periods_per_year
        Steps a year holds: the annualised alpha is ``alpha * periods_per_year``.
    resamples, block_length, confidence
        How the interval was drawn.
    """

    steps: int
    beta: float
    beta_low: float
    beta_high: float
    alpha: float
    alpha_low: float
    alpha_high: float
    periods_per_year: float
    resamples: int
    block_length: int
    confidence: float

    @property
    def outcome(self) -> Outcome:
        """Return whether alpha is told apart from zero, and which way."""
        if self.alpha_low > 0:
            return Outcome.BETTER
        if self.alpha_high < 0:
            return Outcome.WORSE
        return Outcome.NOT_DISTINGUISHABLE

    def annual(self, value: float) -> float:
        """Return a per-step alpha figure annualised (``value * periods_per_year``)."""
        return value * self.periods_per_year

    def to_payload(self) -> dict[str, Any]:
        """Return JSON-safe decimal strings: beta to 3 places, alphas in percent to 4."""

        def pct(value: float) -> str:
            return str(round_half_up(value * 100, 4))

        def num(value: float) -> str:
            return str(round_half_up(value, 3))

        return {
            "steps": self.steps,
            "beta": num(self.beta),
            "beta_ci": [num(self.beta_low), num(self.beta_high)],
            "alpha_per_step": pct(self.alpha),
            "alpha_per_step_ci": [pct(self.alpha_low), pct(self.alpha_high)],
            "alpha_annualised": pct(self.annual(self.alpha)),
            "alpha_annualised_ci": [
                pct(self.annual(self.alpha_low)),
                pct(self.annual(self.alpha_high)),
            ],
            "outcome": self.outcome.value,
            "periods_per_year": num(self.periods_per_year),
            "resamples": self.resamples,
            "block_length": self.block_length,
            "confidence": str(self.confidence),
        }


def _fit(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> tuple[Any, Any]:
    """Return (alpha, beta) of each row of ``a`` on the matching row of ``b`` (2-D arrays)."""
    mb = b.mean(axis=1, keepdims=True)
    ma = a.mean(axis=1, keepdims=True)
    var = ((b - mb) ** 2).sum(axis=1)
    cov = ((b - mb) * (a - ma)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = cov / var
    alpha = ma[:, 0] - beta * mb[:, 0]
    return alpha, beta


def alpha_beta(
    agent: Sequence[SupportsFloat],
    benchmark: Sequence[SupportsFloat],
    *,
    rng: np.random.Generator,
    periods_per_year: float,
    resamples: int = 2_000,
    confidence: float = 0.95,
    block_length: int | None = None,
) -> AlphaBeta | None:
    """Fit ``agent``'s step returns on ``benchmark``'s over the same steps, with intervals.

    Parameters
    ----------
    agent, benchmark
        Step returns as fractions of one, aligned step by step (equal length).
    rng
        The seeded generator every draw comes from.
    periods_per_year
        Steps a year holds (252 trading days, 365 daily cycles...), for the annualised alpha.
    resamples, confidence, block_length
        The block bootstrap: resamples drawn, the interval's confidence, steps per
        block (default ``ceil(n ** (1/3))``).

    Returns
    -------
    AlphaBeta or None
        ``None`` with fewer than three steps, or a benchmark that never moved
        (no exposure can be measured against it).

    Raises
    ------
    ValueError
        For series of different lengths, non-finite returns, or bad parameters.
    """
    fit = AlphaFit(agent, benchmark, rng, periods_per_year)
    (result,) = alpha_betas(
        [fit], resamples=resamples, confidence=confidence, block_length=block_length
    )
    return result


@dataclass(frozen=True, slots=True)
class AlphaFit:
    """One `alpha_betas` fit: the series, the generator its resamples come from, the year."""

    agent: Sequence[SupportsFloat]
    benchmark: Sequence[SupportsFloat]
    rng: np.random.Generator
    periods_per_year: float


_FITS_PER_CHUNK = 8
"""Fits whose resamples `alpha_betas` draws and holds at once (8 x 2,000 x n steps)."""


def alpha_betas(
    fits: Sequence[AlphaFit],
    *,
    resamples: int = 2_000,
    confidence: float = 0.95,
    block_length: int | None = None,
) -> list[AlphaBeta | None]:
    """Return `alpha_beta` of each fit, the fits of one length refitted together.

    Each fit draws its resamples from its own generator, as `alpha_beta` does,
    and its figures are `alpha_beta`'s to the bit: the refits and percentiles
    of many fits of the same length are taken on stacked arrays, row by row.

    Raises
    ------
    ValueError
        As `alpha_beta`, for the first fit that is not well formed.
    """
    if not 0 < confidence < 1 or resamples < 1:
        raise ValueError("confidence in (0, 1), resamples >= 1 and periods_per_year > 0")
    out: list[AlphaBeta | None] = [None] * len(fits)
    groups: dict[tuple[int, int], list[tuple[int, Any, Any, np.random.Generator]]] = {}
    for i, fit in enumerate(fits):
        a = np.asarray([float(x) for x in fit.agent], dtype=np.float64)
        b = np.asarray([float(x) for x in fit.benchmark], dtype=np.float64)
        if a.shape != b.shape:
            raise ValueError(f"agent and benchmark differ in length: {a.size} and {b.size}")
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            raise ValueError("step returns must be finite")
        if fit.periods_per_year <= 0:
            raise ValueError("confidence in (0, 1), resamples >= 1 and periods_per_year > 0")
        n = a.size
        if n < _MIN_STEPS or float(np.ptp(b)) == 0.0:
            continue
        block = block_length or math.ceil(n ** (1 / 3))
        if not 1 <= block <= n:
            raise ValueError(f"block_length must be 1 to {n}, got {block}")
        groups.setdefault((n, block), []).append((i, a, b, fit.rng))
    tail = (1 - confidence) / 2 * 100
    for (n, block), members in groups.items():
        for first in range(0, len(members), _FITS_PER_CHUNK):
            chunk = members[first : first + _FITS_PER_CHUNK]
            a_rows = np.stack([m[1] for m in chunk])
            b_rows = np.stack([m[2] for m in chunk])
            blocks = math.ceil(n / block)
            index = np.empty((len(chunk), resamples, n), dtype=np.int64)
            for row, (_i, _a, _b, rng) in enumerate(chunk):  # drawn here: one block's in memory
                starts = rng.integers(0, n, size=(resamples, blocks))
                drawn = (starts[:, :, None] + np.arange(block)).reshape(resamples, blocks * block)
                index[row] = drawn[:, :n] % n + row * n
            drawn_a = a_rows.ravel()[index].reshape(len(chunk) * resamples, n)
            drawn_b = b_rows.ravel()[index].reshape(len(chunk) * resamples, n)
            alphas, betas = _fit(drawn_a, drawn_b)
            alphas = alphas.reshape(len(chunk), resamples)
            betas = betas.reshape(len(chunk), resamples)
            whole = np.isfinite(betas).all(axis=1)
            if whole.any():  # every resample fitted: the percentiles of those rows at once
                a_ci = np.percentile(alphas[whole], [tail, 100 - tail], axis=1)
                b_ci = np.percentile(betas[whole], [tail, 100 - tail], axis=1)
            row_of = np.cumsum(whole) - 1
            for j, (i, a, b, _rng) in enumerate(chunk):
                if whole[j]:
                    a_low, a_high = a_ci[0, row_of[j]], a_ci[1, row_of[j]]
                    b_low, b_high = b_ci[0, row_of[j]], b_ci[1, row_of[j]]
                else:
                    kept = np.isfinite(betas[j])  # a resample whose benchmark never moved
                    if not kept.any():
                        continue
                    a_low, a_high = np.percentile(alphas[j][kept], [tail, 100 - tail])
                    b_low, b_high = np.percentile(betas[j][kept], [tail, 100 - tail])
                alpha, beta = _fit(a[None, :], b[None, :])
                out[i] = AlphaBeta(
                    steps=n,
                    beta=float(beta[0]),
                    beta_low=float(b_low),
                    beta_high=float(b_high),
                    alpha=float(alpha[0]),
                    alpha_low=float(a_low),
                    alpha_high=float(a_high),
                    periods_per_year=float(fits[i].periods_per_year),
                    resamples=resamples,
                    block_length=block,
                    confidence=confidence,
                )
    return out


def alpha_words(outcome: Outcome | str | None) -> str:
    """Return an alpha verdict as a person reads it.

    >>> alpha_words("better")
    'positive alpha, distinguishable from zero'
    >>> alpha_words("not_distinguishable")
    'alpha not distinguishable from zero'
    """
    match None if outcome is None else Outcome(outcome):
        case Outcome.BETTER:
            return "positive alpha, distinguishable from zero"
        case Outcome.WORSE:
            return "negative alpha, distinguishable from zero"
        case Outcome.NOT_DISTINGUISHABLE:
            return "alpha not distinguishable from zero"
        case _:
            return "too few steps to fit"
