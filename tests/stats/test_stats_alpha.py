"""Beta and alpha against a benchmark, with a seeded block-bootstrap interval (ST-1, ST-2)."""

from __future__ import annotations

import numpy as np
import pytest

from tradeleague.stats import AlphaFit, Outcome, alpha_beta, alpha_betas


def _bench(n: int = 60, seed: int = 1) -> list[float]:
    rng = np.random.default_rng(seed)
    return [float(x) for x in rng.normal(0.001, 0.01, n)]


def test_holding_exactly_the_benchmark_is_beta_one_alpha_zero() -> None:
    """A copy of the benchmark: beta 1, alpha 0 (to rounding), alpha not told from zero."""
    bench = _bench()
    fit = alpha_beta(bench, bench, rng=np.random.default_rng(7), periods_per_year=252)
    assert fit is not None
    assert fit.beta == pytest.approx(1.0, abs=1e-12)
    assert fit.alpha == pytest.approx(0.0, abs=1e-15)
    assert fit.outcome is Outcome.NOT_DISTINGUISHABLE
    body = fit.to_payload()
    assert body["beta"] == "1.000"
    assert body["alpha_per_step"] in ("0.0000", "-0.0000")
    assert body["steps"] == 60


def test_half_the_benchmark_plus_a_constant_is_recovered_within_its_interval() -> None:
    """0.5 x benchmark + c per round (and noise): beta and alpha recovered inside their interval."""
    bench = _bench(250, seed=3)
    noise = np.random.default_rng(4).normal(0, 0.002, 250)
    c = 0.001
    agent = [0.5 * b + c + e for b, e in zip(bench, noise, strict=True)]
    fit = alpha_beta(agent, bench, rng=np.random.default_rng(11), periods_per_year=252)
    assert fit is not None
    assert fit.beta_low <= 0.5 <= fit.beta_high
    assert fit.alpha_low <= c <= fit.alpha_high
    assert abs(fit.beta - 0.5) < 0.05
    assert fit.outcome is Outcome.BETTER  # c is well above the noise over 250 rounds
    assert fit.annual(fit.alpha) == pytest.approx(fit.alpha * 252)
    exact = [0.5 * b + c for b in bench]  # no noise: exactly recovered
    clean = alpha_beta(exact, bench, rng=np.random.default_rng(11), periods_per_year=252)
    assert clean is not None
    assert clean.beta == pytest.approx(0.5)
    assert clean.alpha == pytest.approx(c)


def test_the_interval_is_seeded_and_reproducible() -> None:
    """The same seed draws the same interval; another seed another (the fit itself is fixed)."""
    bench = _bench(80, seed=5)
    agent = [0.8 * b + 0.0002 for b in _bench(80, seed=6)]

    def fit(seed: int) -> dict[str, object]:
        found = alpha_beta(agent, bench, rng=np.random.default_rng(seed), periods_per_year=365)
        assert found is not None
        return found.to_payload()

    assert fit(1) == fit(1)
    other = fit(2)
    assert other["beta"] == fit(1)["beta"]
    assert other["alpha_per_step_ci"] != fit(1)["alpha_per_step_ci"]


def test_too_few_steps_or_a_flat_benchmark_fit_nothing() -> None:
    """No line through fewer than three points, nor against a benchmark that never moved."""
    rng = np.random.default_rng(0)
    assert alpha_beta([0.1, 0.2], [0.1, 0.3], rng=rng, periods_per_year=252) is None
    assert alpha_beta([0.1, 0.2, 0.3], [0.0, 0.0, 0.0], rng=rng, periods_per_year=252) is None
    with pytest.raises(ValueError, match="differ in length"):
        alpha_beta([0.1, 0.2, 0.3], [0.1, 0.2], rng=rng, periods_per_year=252)
    with pytest.raises(ValueError, match="finite"):
        alpha_beta([0.1, float("nan"), 0.3], [0.1, 0.2, 0.3], rng=rng, periods_per_year=252)


def test_many_fits_at_once_give_each_lone_fit_to_the_bit() -> None:
    """ST-2: `alpha_betas` refits many agents together; each is `alpha_beta`'s, to the bit.

    Seventy fits of mixed lengths cross the block refitted at once; among them a
    benchmark that moves on one step only (some resamples miss it and fit no
    line), one that never moves and one too short to fit (both ``None``).
    """
    data = np.random.default_rng(3)
    fits = []
    for i in range(70):
        n = (19, 19, 30)[i % 3]
        bench = [float(x) for x in data.normal(0.001, 0.01, n)]
        agent = [0.5 * b + float(e) for b, e in zip(bench, data.normal(0, 0.004, n), strict=True)]
        fits.append((agent, bench))
    rare = [0.0] * 19
    rare[7] = 0.02
    fits += [([0.001 * i for i in range(19)], rare), ([0.01] * 19, [0.0] * 19), ([0.1], [0.2])]
    seeds = range(100, 100 + len(fits))
    together = alpha_betas(
        [
            AlphaFit(a, b, np.random.default_rng(s), 252.0)
            for (a, b), s in zip(fits, seeds, strict=True)
        ]
    )
    alone = [
        alpha_beta(a, b, rng=np.random.default_rng(s), periods_per_year=252.0)
        for (a, b), s in zip(fits, seeds, strict=True)
    ]
    assert together == alone
    assert together[-2] is None
    assert together[-1] is None
    assert together[-3] is not None
    assert all(f is not None for f in together[:70])
