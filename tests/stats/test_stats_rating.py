"""Ratings across seasons: mean excess, a season bootstrap, Holm-corrected pairs (ST-1, ST-2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.stats.rating import SeasonResult, holm, rate, relabel_p, sign_flip_p

RETURNS = st.floats(min_value=-0.5, max_value=0.5, allow_nan=False, allow_infinity=False)


def _row(
    season: str, model: str, r: float, cash: float = 0.0, bench: float | None = 0.0
) -> SeasonResult:
    return SeasonResult(season=season, model=model, return_=r, cash=cash, benchmark=bench)


@settings(max_examples=30, deadline=None)
@given(cash=st.lists(RETURNS, min_size=1, max_size=8), seed=st.integers(0, 2**32))
def test_a_model_that_always_equals_cash_has_mean_zero(cash: list[float], seed: int) -> None:
    """ST-2: a model whose return is cash's in every season rates 0 against cash, interval 0."""
    rows = [_row(f"s{i}", "same", c, cash=c) for i, c in enumerate(cash)]
    rating = rate(rows, seed=seed, resamples=200)
    (model,) = rating.models
    assert model.vs_cash.mean == 0.0
    assert model.seasons == len(cash)
    if len(cash) >= 2:
        assert model.vs_cash.low == 0.0
        assert model.vs_cash.high == 0.0
    else:
        assert model.vs_cash.low is None  # one season: nothing to resample


def test_the_mean_is_of_excess_over_cash_and_benchmark_by_hand() -> None:
    """ST-2: means over seasons of r - cash and r - benchmark; a season may have no benchmark."""
    rows = [
        _row("a", "m", 0.03, cash=0.01, bench=0.02),
        _row("b", "m", -0.01, cash=0.0, bench=None),
        _row("c", "m", 0.05, cash=0.0, bench=0.01),
    ]
    (model,) = rate(rows, seed=1, resamples=500).models
    assert model.vs_cash.mean == pytest.approx((0.02 - 0.01 + 0.05) / 3)
    assert model.vs_benchmark is not None
    assert model.vs_benchmark.seasons == 2
    assert model.vs_benchmark.mean == pytest.approx((0.01 + 0.04) / 2)


def test_runs_of_one_season_are_one_observation() -> None:
    """ST-1: seeds and prompts of a model in one season are pooled to their mean (runs)."""
    rows = [_row("a", "m", 0.01), _row("a", "m", 0.03), _row("b", "m", 0.0)]
    (model,) = rate(rows, seed=0, resamples=100).models
    assert (model.seasons, model.runs) == (2, 3)
    assert model.vs_cash.mean == pytest.approx((0.02 + 0.0) / 2)


def test_the_interval_is_seeded_and_reproducible() -> None:
    """ST-2: the same seasons and seed give one interval; another seed moves it, not the mean"""
    data = np.random.default_rng(3)
    rows = [_row(f"s{i}", "m", float(x)) for i, x in enumerate(data.normal(0.01, 0.02, 12))]
    first = rate(rows, seed=11, resamples=2000)
    again = rate(list(reversed(rows)), seed=11, resamples=2000)
    other = rate(rows, seed=12, resamples=2000)
    assert first == again
    assert other.models[0].vs_cash.mean == first.models[0].vs_cash.mean
    assert other.models[0].vs_cash.low != first.models[0].vs_cash.low
    low, high = first.models[0].vs_cash.low, first.models[0].vs_cash.high
    assert low is not None
    assert high is not None
    assert low < first.models[0].vs_cash.mean < high


def test_a_models_interval_does_not_depend_on_the_other_models() -> None:
    """ST-2: each model's resamples are seeded by the seed and its own name."""
    alone = [_row(f"s{i}", "m", 0.01 * i) for i in range(6)]
    crowd = [*alone, *(_row(f"s{i}", "n", -0.02 * i) for i in range(6))]
    assert rate(alone, seed=5).models[0] == next(
        m for m in rate(crowd, seed=5).models if m.model == "m"
    )


def test_holm_against_a_hand_computation() -> None:
    """Holm: sorted p 0.01, 0.02, 0.04, 0.30 times 4, 3, 2, 1, kept non-decreasing, as given."""
    assert holm([0.04, 0.01, 0.30, 0.02]) == pytest.approx([0.08, 0.04, 0.30, 0.06])
    assert holm([0.5, 0.4]) == pytest.approx([0.8, 0.8])  # 0.4 x 2 = 0.8; 0.5 x 1 lifted to 0.8
    assert holm([0.6, 0.7, 0.9]) == pytest.approx([1.0, 1.0, 1.0])  # capped at 1
    assert holm([]) == []


def test_the_sign_flip_test_by_hand() -> None:
    """Differences 1, 2, 3: of the 8 sign vectors only +++ and --- reach |mean| 2, so p = 2/8."""
    rng = np.random.default_rng(0)
    assert sign_flip_p([1.0, 2.0, 3.0], rng, 100) == 0.25
    assert sign_flip_p([0.01, 0.02], rng, 100) == 0.5  # two seasons can never reach 5%
    assert sign_flip_p([0.0, 0.0, 0.0], rng, 100) == 1.0


def test_the_relabelling_test_by_hand() -> None:
    """a = 1, 2 and b = 3, 4: of the 6 splits of 1..4 only {1,2} and {3,4} reach |diff| 2."""
    rng = np.random.default_rng(0)
    assert relabel_p([1.0, 2.0], [3.0, 4.0], rng, 100) == pytest.approx(2 / 6)


def test_pairs_are_paired_over_shared_seasons_and_holm_corrected() -> None:
    """ST-2: eight shared seasons where a beats b every time: p = 2/256, Holm over 3 pairs."""
    rows = []
    for i in range(8):
        rows += [_row(f"s{i}", "a", 0.02 + 0.001 * i), _row(f"s{i}", "b", 0.0 + 0.001 * i)]
        rows.append(_row(f"s{i}", "c", 0.02 + 0.001 * i + (0.001 if i % 2 else -0.001)))
    rating = rate(rows, seed=0, resamples=1000)
    pairs = {(p.a, p.b): p for p in rating.pairs}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    ab = pairs["a", "b"]
    assert ab.paired
    assert ab.shared == 8
    assert ab.difference == pytest.approx(0.02)
    assert ab.p_value == 2 / 256
    expected = holm([p.p_value for p in rating.pairs])
    assert [p.p_holm for p in rating.pairs] == expected
    assert ab.verdict == "better"
    assert pairs["b", "c"].verdict == "worse"
    assert pairs["a", "c"].verdict == "not_distinguishable"
    assert [m.model for m in rating.models] == ["a", "c", "b"]


def test_models_without_shared_seasons_are_compared_unpaired() -> None:
    """ST-2: no season in common: the unpaired test of mean excess over cash."""
    rows = [_row("s1", "a", 0.01), _row("s2", "a", 0.02), _row("s3", "b", 0.03)]
    (pair,) = rate(rows, seed=0, resamples=100).pairs
    assert not pair.paired
    assert pair.shared == 0
    assert pair.difference == pytest.approx(0.015 - 0.03)
    assert pair.p_value == pytest.approx(
        relabel_p([0.01, 0.02], [0.03], np.random.default_rng(0), 1)
    )


def test_a_non_finite_return_is_refused() -> None:
    """Bad input is refused in one sentence, never rated."""
    with pytest.raises(ValueError, match="finite"):
        rate([_row("a", "m", float("nan"))], seed=0)
