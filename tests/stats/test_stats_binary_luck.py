"""The luck calculator: break-even, expected P&L, interval, trades to prove, luckiest of N.

Rules: D-SCO-6, D-LCK-1, D-LCK-2, D-LCK-3, ST-3; the numbers are seed 001, section 07.
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.stats import (
    break_even_hit_rate,
    expected_pnl_per_round,
    expected_top_hit_rate,
    luck_report,
    percent,
    round_half_up,
    trades_to_prove,
    wald_interval,
)

SEED_RATE = 0.531
SEED_TRADES = 750


def exact_top_hit_rate(trades: int, models: int) -> Fraction:
    """E[max of `models` Binomial(trades, 1/2)] / trades, in exact integer arithmetic."""
    total = 2**trades
    cumulative, acc, coefficient = 0, 0, 1
    for k in range(trades):
        cumulative += coefficient
        coefficient = coefficient * (trades - k) // (k + 1)
        acc += total**models - cumulative**models
    return Fraction(acc, total**models * trades)


def test_break_even_and_coin_flip_edge() -> None:
    """D-SCO-6: break-even 1/(1+payout) is 55.56% at 80%; a coin flip expects -1.00 a round."""
    payout = Fraction(4, 5)
    assert break_even_hit_rate(payout) == Fraction(5, 9)
    assert percent(break_even_hit_rate(payout)) == Decimal("55.56")
    assert expected_pnl_per_round(Fraction(1, 2), payout, Fraction(10)) == -1
    assert expected_pnl_per_round(Fraction(1), payout, Fraction(10)) == 8
    assert expected_pnl_per_round(Fraction(0), payout, Fraction(10)) == -10


@given(
    st.fractions(min_value=Fraction(1, 100), max_value=3, max_denominator=1000),
    st.fractions(min_value=Fraction(1, 100), max_value=1000, max_denominator=100),
)
def test_expected_pnl_is_zero_exactly_at_break_even(payout: Fraction, stake: Fraction) -> None:
    """D-SCO-6: the expected P&L line crosses zero at 1 / (1 + payout), exactly."""
    be = break_even_hit_rate(payout)
    assert expected_pnl_per_round(be, payout, stake) == 0
    assert expected_pnl_per_round(be - Fraction(1, 10**6), payout, stake) < 0


def test_seed_confidence_interval() -> None:
    """D-LCK-1: 53.1% over 750 -> 49.5% to 56.7%, +/- 3.6 points, and it contains 50%."""
    ci = wald_interval(SEED_RATE, SEED_TRADES)
    assert ci.half_width == pytest.approx(1.96 * math.sqrt(0.531 * 0.469 / 750), rel=1e-15)
    assert (percent(ci.low, 1), percent(ci.high, 1)) == (Decimal("49.5"), Decimal("56.7"))
    assert percent(ci.half_width, 1) == Decimal("3.6")
    assert ci.contains(0.5)
    assert not wald_interval(SEED_RATE, 4 * SEED_TRADES).contains(0.5)


def test_interval_stays_inside_zero_and_one() -> None:
    """D-LCK-1: the Wald interval is clipped to [0, 1] and is a point at 0% or 100%."""
    ci = wald_interval(0.02, 10)
    assert ci.low == 0.0
    assert ci.high == pytest.approx(0.02 + ci.half_width)
    edge = wald_interval(1.0, 50)
    assert (edge.low, edge.high, edge.half_width) == (1.0, 1.0, 0.0)


def test_seed_trades_to_prove() -> None:
    """D-LCK-2: 53.1% needs 2,040 trades, about 7.6 days at 270 rounds a day."""
    assert trades_to_prove(SEED_RATE) == 2040
    assert round_half_up(Fraction(2040, 270), 1) == Decimal("7.6")
    assert trades_to_prove(0.5) is None


@given(st.floats(min_value=0.0, max_value=1.0).filter(lambda p: abs(p - 0.5) > 1e-3))
def test_trades_to_prove_formula_and_symmetry(p: float) -> None:
    """D-LCK-2: n = ((1.96 x 0.5 + 0.8416 sqrt(p(1-p))) / (p - 0.5))^2 rounded up."""
    raw = ((1.96 * 0.5 + 0.8416 * math.sqrt(p * (1 - p))) / (p - 0.5)) ** 2
    n = trades_to_prove(p)
    assert n is not None
    assert raw - 1e-6 <= n < raw + 1
    mirrored = trades_to_prove(1 - p)
    assert mirrored is not None
    assert abs(mirrored - n) <= 1


def test_luckiest_of_fifteen_coin_flips() -> None:
    """D-LCK-3: the expected top hit rate of 15 coin flips over 750 trades is 53.2%."""
    exact = exact_top_hit_rate(SEED_TRADES, 15)
    assert expected_top_hit_rate(SEED_TRADES, 15) == pytest.approx(float(exact), rel=1e-12)
    assert percent(expected_top_hit_rate(SEED_TRADES, 15), 1) == Decimal("53.2")


@pytest.mark.parametrize(("trades", "models"), [(1, 1), (1, 3), (7, 2), (40, 15), (300, 200)])
def test_luckiest_matches_exact_binomial_arithmetic(trades: int, models: int) -> None:
    """D-LCK-3: the float sum agrees with exact integer arithmetic of F(k)^N."""
    exact = exact_top_hit_rate(trades, models)
    assert expected_top_hit_rate(trades, models) == pytest.approx(float(exact), rel=1e-12)


def test_luckiest_matches_enumeration_of_every_outcome() -> None:
    """D-LCK-3: for 3 models over 4 trades, average the best score over all 2^12 outcomes."""
    trades, models = 4, 3
    best_total = 0
    for bits in itertools.product((0, 1), repeat=trades * models):
        best_total += max(sum(bits[m * trades : (m + 1) * trades]) for m in range(models))
    expected = Fraction(best_total, 2 ** (trades * models) * trades)
    assert expected_top_hit_rate(trades, models) == pytest.approx(float(expected), rel=1e-12)


@given(st.integers(min_value=1, max_value=400), st.integers(min_value=1, max_value=30))
def test_luckiest_grows_with_models_and_shrinks_to_half(trades: int, models: int) -> None:
    """D-LCK-3: more coins give a higher best; one coin is 50%; more trades pull it to 50%."""
    one = expected_top_hit_rate(trades, 1)
    best = expected_top_hit_rate(trades, models)
    more = expected_top_hit_rate(trades, models + 1)
    assert one == pytest.approx(0.5, abs=1e-12)
    assert 0.5 - 1e-12 <= best <= more + 1e-12 <= 1.0
    assert expected_top_hit_rate(4 * trades, models + 1) <= more + 1e-12


def test_seed_report_figures() -> None:
    """D-LCK-1..3, D-SCO-6, ST-3: the calculator's rounded figures are the seed's numbers."""
    report = luck_report(hit_rate=Fraction(531, 1000), trades=750)
    assert report.figures().as_json() == {
        "ci_low": 49.5,
        "ci_high": 56.7,
        "half_width": 3.6,
        "contains_coin_flip": True,
        "break_even": 55.56,
        "ev_per_round_at_coin_flip": -1.0,
        "trades_to_prove": 2040,
        "days_to_prove": 7.6,
        "luckiest_of_n": 53.2,
    }
    assert report.ev_at_hit_rate == Fraction(531, 1000) * 8 - Fraction(469, 1000) * 10


def test_bad_calculator_inputs_are_refused() -> None:
    """D-LCK-1..3, D-SCO-6: out-of-range inputs raise a sentence that names them."""
    with pytest.raises(ValueError, match="hit rate"):
        luck_report(hit_rate=Fraction(3, 2), trades=10)
    with pytest.raises(ValueError, match="trades"):
        wald_interval(0.5, 0)
    with pytest.raises(ValueError, match="payout"):
        break_even_hit_rate(Fraction(0))
    with pytest.raises(ValueError, match="models"):
        expected_top_hit_rate(10, 0)
    with pytest.raises(ValueError, match="stake"):
        luck_report(hit_rate=Fraction(1, 2), trades=10, stake=Fraction(0))


def test_top_hit_rate_p_value_is_the_best_of_n_binomial_tail() -> None:
    """D-LCK-3: the chance that the best of N coins hits at least as often as the leader.

    Checked against the exact enumeration of two coins over six trades, and its edges.
    """
    from math import comb

    from tradeleague.stats import top_hit_rate_p_value

    trades = 6
    pmf = [comb(trades, k) / 2**trades for k in range(trades + 1)]
    for hits in range(trades + 1):
        at_least = sum(
            pmf[a] * pmf[b]
            for a in range(trades + 1)
            for b in range(trades + 1)
            if max(a, b) >= hits
        )
        assert abs(top_hit_rate_p_value(hits, trades, 2) - at_least) < 1e-12, hits
    assert top_hit_rate_p_value(0, 10, 5) == 1.0
    assert top_hit_rate_p_value(10, 10, 1) == 0.5**10
    # more coins make the same lead likelier to be luck
    assert top_hit_rate_p_value(7, 10, 15) > top_hit_rate_p_value(7, 10, 1)
    with pytest.raises(ValueError, match="hits"):
        top_hit_rate_p_value(11, 10, 1)
