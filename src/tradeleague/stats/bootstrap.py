"""Is a return record distinguishable from its baseline? A paired bootstrap (SPEC ST-2).

The test is over step returns of the agent and of a baseline over the *same*
steps (buy-and-hold of the benchmark; cash is a baseline of zeros, or of the
risk-free rate). Pairing keeps the market's common moves out of the noise:
the statistic is the mean of the per-step differences ``d = agent - baseline``.

The bootstrap resamples ``d`` with replacement, in blocks of ``block_length``
consecutive steps (circular moving blocks; 1 is the plain i.i.d. bootstrap,
longer blocks keep short-range autocorrelation). It reports

- a percentile confidence interval of the mean difference, and
- a two-sided p-value for "the mean difference is zero", from the resampled
  means shifted to the null: ``(1 + #{|m* - mean(d)| >= |mean(d)|}) / (B + 1)``.

The record is *distinguishable* when that p-value is below ``1 - confidence``.
All randomness comes from the ``numpy.random.Generator`` passed in, so the same
seed gives the same answer.

A table of many agents tests each of them over the same steps: `Resampling`
draws the resamples once (as a matrix of how often each step is drawn) and
every agent's paired test reads its means off that matrix, so a thousand
agents cost one draw and a thousand matrix-vector products instead of a
thousand draws and gathers. Each agent's test is the bootstrap above, with
its resamples shared with the other agents of its table (common random
numbers); an agent's figures do not depend on which other agents are tested.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import SupportsFloat

import numpy as np
import numpy.typing as npt

__all__ = ["BootstrapComparison", "Resampling", "SharedTest", "paired_bootstrap"]

_CHUNK_ELEMENTS = 2_000_000
"""Upper bound on resampled elements held in memory at once."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapComparison:
    """The outcome of :func:`paired_bootstrap`.

    Attributes
    ----------
    steps
        Paired steps the test rests on (ST-1).
    resamples
        Bootstrap resamples drawn.
    block_length
        Consecutive steps per resampled block.
    confidence
        The interval's confidence level; ``1 - confidence`` is the test's level.
    mean_difference
        Observed mean of ``agent - baseline`` per step.
    ci_low, ci_high
        Percentile bootstrap interval of the mean difference.
    p_value
        Two-sided bootstrap p-value of "mean difference is zero"; never 0.
    distinguishable
        ``p_value < 1 - confidence``.
    """

    steps: int
    resamples: int
    block_length: int
    confidence: float
    mean_difference: float
    ci_low: float
    ci_high: float
    p_value: float
    distinguishable: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SharedTest:
    """A paired test's verdict figures, without the interval (`Resampling.test_many`).

    ``mean_difference``, ``p_value`` and ``distinguishable`` are exactly
    `Resampling.compare`'s for the same series: the figures a verdict rests on.
    """

    steps: int
    resamples: int
    confidence: float
    mean_difference: float
    p_value: float
    distinguishable: bool


_TESTS_PER_CHUNK = 64
"""Series whose resampled means `Resampling.test_many` holds at once (64 x B floats)."""


def _resampled_means(
    d: npt.NDArray[np.float64], count: int, block_length: int, rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    n = d.size
    blocks = math.ceil(n / block_length)
    offsets = np.arange(block_length)
    starts = rng.integers(0, n, size=(count, blocks))
    index = (starts[:, :, None] + offsets).reshape(count, blocks * block_length)[:, :n] % n
    means: npt.NDArray[np.float64] = d[index].mean(axis=1)
    return means


def _resampled_counts(
    n: int, count: int, block_length: int, rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """Return ``count`` resamples of ``n`` steps as how often each step is drawn (count x n)."""
    blocks = math.ceil(n / block_length)
    offsets = np.arange(block_length)
    starts = rng.integers(0, n, size=(count, blocks))
    index = (starts[:, :, None] + offsets).reshape(count, blocks * block_length)[:, :n] % n
    flat = (index + (np.arange(count) * n)[:, None]).ravel()
    counts: npt.NDArray[np.float64] = (
        np.bincount(flat, minlength=count * n).reshape(count, n).astype(np.float64)
    )
    return counts


class Resampling:
    """One set of bootstrap resamples of ``steps`` paired steps, shared by many paired tests.

    Parameters
    ----------
    steps
        Paired steps each test has (2 or more).
    rng
        The seeded generator the resamples are drawn from.
    resamples
        Bootstrap resamples (``B``).
    block_length
        Steps per resampled block (circular moving blocks; 1 to ``steps``).

    Raises
    ------
    ValueError
        For fewer than two steps or bad parameters.
    """

    def __init__(
        self,
        steps: int,
        *,
        rng: np.random.Generator,
        resamples: int = 10_000,
        block_length: int = 1,
    ) -> None:
        if steps < 2:
            raise ValueError(f"a resampling needs two or more steps, not {steps}")
        if resamples < 1:
            raise ValueError(f"resamples must be 1 or more, not {resamples}")
        if not 1 <= block_length <= steps:
            raise ValueError(f"block_length must be between 1 and {steps}, not {block_length}")
        self.steps = steps
        self.resamples = resamples
        self.block_length = block_length
        per_chunk = max(1, _CHUNK_ELEMENTS // steps)
        parts = []
        left = resamples
        while left > 0:
            count = min(per_chunk, left)
            parts.append(_resampled_counts(steps, count, block_length, rng))
            left -= count
        self._weights = np.concatenate(parts) / steps
        """Each resample's weight on each step (B x steps): a resample's mean is ``weights @ d``."""

    def compare(
        self,
        agent: Sequence[SupportsFloat],
        baseline: Sequence[SupportsFloat],
        *,
        confidence: float = 0.95,
    ) -> BootstrapComparison:
        """Test an agent's step returns against a baseline's over these resamples (ST-2).

        The same test as `paired_bootstrap`, its resamples this object's.

        Raises
        ------
        ValueError
            For series of another length than ``steps``, non-finite returns or a
            bad confidence.
        """
        d = _differences(agent, baseline, confidence)
        if d.size != self.steps:
            raise ValueError(f"the resampling is of {self.steps} steps, the series of {d.size}")
        means: npt.NDArray[np.float64] = self._weights @ d
        return _comparison(d, means, self.block_length, confidence)

    def test_many(
        self,
        pairs: Sequence[tuple[Sequence[SupportsFloat], Sequence[SupportsFloat]]],
        *,
        confidence: float = 0.95,
    ) -> list[SharedTest]:
        """Test many (agent, baseline) series over these resamples at once (ST-2).

        Each result's mean difference, p-value and verdict are `compare`'s for
        the same pair, to the bit: every series' resampled means are the same
        matrix-vector product, and the p-values are counted for a block of
        series at once, without the interval (`compare` draws it with two
        quantiles of every series' means, most of a test's cost).

        Raises
        ------
        ValueError
            As `compare`, for the first pair that is not well formed.
        """
        tail = 1.0 - confidence
        diffs = [_differences(agent, baseline, confidence) for agent, baseline in pairs]
        for d in diffs:
            if d.size != self.steps:
                raise ValueError(f"the resampling is of {self.steps} steps, the series of {d.size}")
        out: list[SharedTest] = []
        for first in range(0, len(diffs), _TESTS_PER_CHUNK):
            chunk = diffs[first : first + _TESTS_PER_CHUNK]
            means = np.empty((len(chunk), self.resamples), dtype=np.float64)
            for row, d in enumerate(chunk):
                means[row] = self._weights @ d  # the product `compare` takes, row by row
            observed = np.array([float(d.mean()) for d in chunk], dtype=np.float64)
            extreme = np.count_nonzero(
                np.abs(means - observed[:, None]) >= np.abs(observed)[:, None], axis=1
            )
            for mean, count in zip(observed.tolist(), extreme.tolist(), strict=True):
                p_value = (1 + int(count)) / (self.resamples + 1)
                out.append(
                    SharedTest(
                        steps=self.steps,
                        resamples=self.resamples,
                        confidence=confidence,
                        mean_difference=mean,
                        p_value=p_value,
                        distinguishable=p_value < tail,
                    )
                )
        return out


def _differences(
    agent: Sequence[SupportsFloat], baseline: Sequence[SupportsFloat], confidence: float
) -> npt.NDArray[np.float64]:
    a = np.asarray([float(x) for x in agent], dtype=np.float64)
    b = np.asarray([float(x) for x in baseline], dtype=np.float64)
    if a.size != b.size:
        raise ValueError(f"the series must pair step by step ({a.size} vs {b.size} steps)")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("step returns must be finite numbers")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, not {confidence}")
    return a - b


def _comparison(
    d: npt.NDArray[np.float64],
    means: npt.NDArray[np.float64],
    block_length: int,
    confidence: float,
) -> BootstrapComparison:
    """Return the test's figures from the differences and their resampled means."""
    observed = float(d.mean())
    tail = 1.0 - confidence
    low, high = np.quantile(means, [tail / 2.0, 1.0 - tail / 2.0])
    extreme = int(np.count_nonzero(np.abs(means - observed) >= abs(observed)))
    p_value = (1 + extreme) / (means.size + 1)
    return BootstrapComparison(
        steps=int(d.size),
        resamples=int(means.size),
        block_length=block_length,
        confidence=confidence,
        mean_difference=observed,
        ci_low=float(low),
        ci_high=float(high),
        p_value=p_value,
        distinguishable=p_value < tail,
    )


def paired_bootstrap(
    agent: Sequence[SupportsFloat],
    baseline: Sequence[SupportsFloat],
    *,
    rng: np.random.Generator,
    resamples: int = 10_000,
    confidence: float = 0.95,
    block_length: int = 1,
) -> BootstrapComparison | None:
    """Test whether an agent's step returns differ from a baseline's over the same steps (ST-2).

    Parameters
    ----------
    agent, baseline
        Step returns as fractions of one, aligned step by step (equal length).
    rng
        The seeded generator every draw comes from, e.g. ``numpy.random.default_rng(7)``.
    resamples
        Bootstrap resamples (``B``); 10,000 keeps the p-value's own noise
        near 0.002 at the 5% level.
    confidence
        Confidence of the interval, strictly between 0 and 1.
    block_length
        Steps per resampled block (1 to the number of steps).

    Returns
    -------
    BootstrapComparison or None
        ``None`` with fewer than two paired steps: there is nothing to resample.

    Raises
    ------
    ValueError
        For series of different lengths, non-finite returns, or bad parameters.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be 1 or more, not {resamples}")
    d = _differences(agent, baseline, confidence)
    if d.size < 2:
        return None
    if not 1 <= block_length <= d.size:
        raise ValueError(f"block_length must be between 1 and {d.size}, not {block_length}")
    per_chunk = max(1, _CHUNK_ELEMENTS // d.size)
    parts: list[npt.NDArray[np.float64]] = []
    left = resamples
    while left > 0:
        count = min(per_chunk, left)
        parts.append(_resampled_means(d, count, block_length, rng))
        left -= count
    return _comparison(d, np.concatenate(parts), block_length, confidence)
