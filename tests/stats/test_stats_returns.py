"""Season return, step returns and max drawdown (S-SCO-1, W-SCO-2, T-SCO-1, ST-3)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from math import prod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.money import usd
from tradeleague.stats import (
    drawdown_percent,
    max_drawdown,
    percent,
    return_percent,
    season_return,
    step_returns,
)

START = usd("10000")
SEED_ENTRIES = [usd("10231.40"), usd("10035.20"), usd("10684.00")]

values_st = st.lists(st.integers(min_value=1, max_value=10**13), min_size=1, max_size=30)


def test_seed_example_return_and_drawdown() -> None:
    """W-SCO-2, ST-3: 10,231.40 -> 10,035.20 -> 10,684.00 from 10,000 is +6.84% and -1.92%."""
    assert season_return(START, SEED_ENTRIES) == Fraction(684, 10_000)
    assert max_drawdown(SEED_ENTRIES) == Fraction(10_231_40 - 10_035_20, 10_231_40)
    assert return_percent(START, SEED_ENTRIES) == Decimal("6.84")
    assert drawdown_percent(SEED_ENTRIES) == Decimal("-1.92")


def test_start_is_not_a_drawdown_peak() -> None:
    """W-SCO-2: the drawdown is measured only at the agent's own entries, not from the start.

    An agent whose first entry is already below its 10,000 start has no drawdown
    until an entry falls below an earlier entry; the return still counts from the start.
    """
    entries = [usd("9800"), usd("9900")]
    assert max_drawdown(entries) == 0
    assert max_drawdown([START, *entries]) == Fraction(2, 100)
    assert return_percent(START, entries) == Decimal("-1.00")


def test_exact_halves_round_toward_the_higher_value() -> None:
    """ST-3, W-SCO-2: 1.925% shows as 1.93%, a 1.925% drawdown as -1.92% (toward higher)."""
    assert return_percent(START, [usd("10192.50")]) == Decimal("1.93")
    assert drawdown_percent([START, usd("9807.50")]) == Decimal("-1.92")
    assert percent(Fraction(-1, 200), 1) == Decimal("-0.5")
    assert percent(Fraction(-3, 4000), 2) == Decimal("-0.07")


def test_empty_and_flat_paths_are_explicit_zeros() -> None:
    """S-SCO-1, W-SCO-2: no entries means no return and no drawdown, never an error or NaN."""
    assert season_return(START, []) == 0
    assert max_drawdown([]) == 0
    assert max_drawdown([START]) == 0
    assert max_drawdown([START, START, usd("10001")]) == 0
    assert step_returns([START]) == ()
    assert drawdown_percent([]) == Decimal("0.00")


def test_bad_paths_are_refused() -> None:
    """S-SCO-1: a return from a non-positive value is undefined, so it raises."""
    with pytest.raises(ValueError, match="starting value"):
        season_return(0, [START])
    with pytest.raises(ValueError, match="first value"):
        max_drawdown([0, START])
    with pytest.raises(ValueError, match="undefined"):
        step_returns([START, 0, START])


def test_wiped_out_equity_is_a_full_drawdown() -> None:
    """S-SCO-1: a fall to zero is a drawdown of exactly 1 (100%)."""
    assert max_drawdown([START, usd("12000"), 0]) == 1


@given(values_st)
def test_step_returns_compound_to_the_season_return(values: list[int]) -> None:
    """S-SCO-1, T-SCO-1: prod(1 + step) = 1 + season return, exactly."""
    steps = step_returns(values)
    assert len(steps) == len(values) - 1
    assert prod((1 + r for r in steps), start=Fraction(1)) == 1 + season_return(values[0], values)


@given(values_st)
def test_max_drawdown_matches_brute_force(values: list[int]) -> None:
    """S-SCO-1: max over i < j of (v_i - v_j) / v_i, floored at zero; in [0, 1)."""
    expected = max(
        [Fraction(0)]
        + [
            Fraction(values[i] - values[j], values[i])
            for i in range(len(values))
            for j in range(i + 1, len(values))
        ]
    )
    dd = max_drawdown(values)
    assert dd == expected
    assert 0 <= dd < 1


@given(values_st, st.integers(min_value=1, max_value=1000))
def test_max_drawdown_is_scale_free(values: list[int], k: int) -> None:
    """S-SCO-1: a drawdown is a fraction of the peak, so scaling every value changes nothing."""
    assert max_drawdown([k * v for v in values]) == max_drawdown(values)
