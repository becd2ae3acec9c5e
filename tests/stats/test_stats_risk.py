"""Sharpe, Sortino and volatility over step returns (S-SCO-1, T-SCO-1)."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.money import usd
from tradeleague.stats import (
    DownsideDeviation,
    downside_deviation,
    sharpe,
    sortino,
    step_returns,
    volatility,
)

RETURNS = [0.01, -0.02, 0.03, 0.0, -0.01]
returns_st = st.lists(
    st.floats(min_value=-0.5, max_value=0.5, allow_nan=False), min_size=2, max_size=40
)


def test_sharpe_is_annualised_mean_excess_over_sample_std() -> None:
    """S-SCO-1, T-SCO-1: Sharpe = sqrt(ppy) x mean(r - rf) / stdev(r), sample std."""
    rf = 0.0001
    expected = math.sqrt(252) * statistics.fmean(r - rf for r in RETURNS)
    expected /= statistics.stdev(RETURNS)
    assert sharpe(RETURNS, periods_per_year=252, risk_free=rf) == pytest.approx(expected, rel=1e-12)


def test_volatility_is_the_std_of_step_returns() -> None:
    """S-SCO-1: volatility = sample std of step returns; annualised only when asked."""
    assert volatility(RETURNS) == pytest.approx(statistics.stdev(RETURNS), rel=1e-12)
    annual = volatility(RETURNS, periods_per_year=252)
    assert annual == pytest.approx(statistics.stdev(RETURNS) * math.sqrt(252), rel=1e-12)


def test_sortino_target_semideviation() -> None:
    """S-SCO-1: Sortino over sqrt(mean(min(r - rf, 0)^2)) across all steps (the default)."""
    dd = math.sqrt((0.02**2 + 0.01**2) / len(RETURNS))
    assert downside_deviation(RETURNS) == pytest.approx(dd, rel=1e-12)
    expected = math.sqrt(12) * statistics.fmean(RETURNS) / dd
    assert sortino(RETURNS, periods_per_year=12) == pytest.approx(expected, rel=1e-12)


def test_sortino_negative_std_reads_the_seed_literally() -> None:
    """S-SCO-1: the alternative denominator is the sample std of the negative steps only."""
    method = DownsideDeviation.NEGATIVE_STD
    expected_dd = statistics.stdev([-0.02, -0.01])
    assert downside_deviation(RETURNS, method=method) == pytest.approx(expected_dd, rel=1e-12)
    expected = statistics.fmean(RETURNS) / expected_dd
    assert sortino(RETURNS, periods_per_year=1, method=method) == pytest.approx(expected, rel=1e-12)
    # Equal losses have no spread: the literal reading is undefined where the default is not.
    equal_losses = [0.02, -0.01, 0.03, -0.01]
    assert sortino(equal_losses, periods_per_year=1, method=method) is None
    assert sortino(equal_losses, periods_per_year=1) is not None


def test_degenerate_series_give_none_or_zero_never_nan() -> None:
    """S-SCO-1, T-SCO-1: empty, single and constant series have documented answers."""
    for short in ([], [0.01]):
        assert sharpe(short, periods_per_year=252) is None
        assert sortino(short, periods_per_year=252) is None
        assert volatility(short) is None
    constant = [0.001] * 10  # a mean that is not exact in binary must still be "no spread"
    assert volatility(constant) == 0.0
    assert sharpe(constant, periods_per_year=252) is None
    assert sortino(constant, periods_per_year=252) is None  # nothing below the target
    assert downside_deviation(constant) == 0.0
    assert downside_deviation([]) is None
    assert downside_deviation([-0.01], method=DownsideDeviation.NEGATIVE_STD) is None


def test_exact_step_returns_feed_the_ratios() -> None:
    """T-SCO-1: the exact Fractions from a value path are accepted as they are."""
    path = [usd("10000"), usd("10100"), usd("9999"), usd("10300")]
    exact = step_returns(path)
    assert all(isinstance(r, Fraction) for r in exact)
    floats = [float(r) for r in exact]
    assert sharpe(exact, periods_per_year=252) == sharpe(floats, periods_per_year=252)


def test_bad_inputs_are_refused() -> None:
    """S-SCO-1: a non-finite return or a non-positive year length is an error, not a NaN."""
    with pytest.raises(ValueError, match="finite"):
        sharpe([0.01, math.nan], periods_per_year=252)
    with pytest.raises(ValueError, match="periods_per_year"):
        sharpe(RETURNS, periods_per_year=0)
    with pytest.raises(ValueError, match="periods_per_year"):
        volatility(RETURNS, periods_per_year=-1)


@given(returns_st, st.floats(min_value=0.01, max_value=100))
def test_ratios_do_not_depend_on_scale(returns: list[float], k: float) -> None:
    """S-SCO-1: with no risk-free rate, scaling every step return leaves Sharpe and Sortino."""
    for ratio in (sharpe, sortino):
        base = ratio(returns, periods_per_year=252)
        scaled = ratio([k * r for r in returns], periods_per_year=252)
        if base is None or scaled is None or abs(base) > 1e6:
            continue  # undefined, or a spread so small that the float noise dominates
        assert scaled == pytest.approx(base, rel=1e-6, abs=1e-9)


@given(returns_st)
def test_results_are_finite_or_none(returns: list[float]) -> None:
    """S-SCO-1, T-SCO-1: no NaN or infinity leaks from any ratio."""
    for value in (
        sharpe(returns, periods_per_year=252),
        sortino(returns, periods_per_year=252),
        sortino(returns, periods_per_year=252, method=DownsideDeviation.NEGATIVE_STD),
        volatility(returns),
    ):
        assert value is None or math.isfinite(value)
