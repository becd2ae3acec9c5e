"""Direction arena scores: ROI, hit rate, answer rate, streak, group rows (D-SCO-1..5)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.money import usd
from tradeleague.stats import (
    ArenaTally,
    RoundResult,
    answer_rate,
    combine,
    hit_rate,
    percent,
    roi,
    streak,
)

BASE = usd("50000")

tally_st = st.builds(
    ArenaTally,
    balance=st.integers(min_value=0, max_value=10**11),
    baseline=st.integers(min_value=1, max_value=10**11),
    wins=st.integers(min_value=0, max_value=1000),
    losses=st.integers(min_value=0, max_value=1000),
    draws=st.integers(min_value=0, max_value=100),
    skips=st.integers(min_value=0, max_value=100),
)


def test_roi_is_measured_from_the_baseline() -> None:
    """D-SCO-1: ROI = (balance - 50,000) / 50,000."""
    assert roi(ArenaTally(balance=usd("50500"), baseline=BASE)) == Fraction(1, 100)
    assert roi(ArenaTally(balance=usd("49991.80"), baseline=BASE)) == Fraction(-8_20, 50_000_00)
    assert percent(roi(ArenaTally(balance=usd("49991.80"), baseline=BASE))) == Decimal("-0.02")


def test_hit_rate_excludes_draws_and_skips_and_answer_rate_counts_them() -> None:
    """D-SCO-2: hit = wins / (wins + losses); answer rate = settled / (settled + skips)."""
    t = ArenaTally(balance=BASE, baseline=BASE, wins=3, losses=1, draws=5, skips=7)
    assert hit_rate(t) == Fraction(3, 4)
    assert answer_rate(t) == Fraction(9, 16)
    assert t.settled == 9
    only_draws = ArenaTally(balance=BASE, baseline=BASE, draws=4, skips=1)
    assert hit_rate(only_draws) is None
    assert answer_rate(only_draws) == Fraction(4, 5)
    assert answer_rate(ArenaTally(balance=BASE, baseline=BASE)) is None


def test_streak_is_a_signed_run_that_draws_do_not_break() -> None:
    """D-SCO-4: correct +1, missed -1, draw unchanged (ours: a skip is unchanged too)."""
    w, lo, d, s = RoundResult.WIN, RoundResult.LOSS, RoundResult.DRAW, RoundResult.SKIP
    assert streak([]) == 0
    assert streak([w, w, d, w]) == 3
    assert streak([w, w, lo]) == -1
    assert streak([lo, d, s, lo, lo]) == -3
    assert streak([lo, lo, w]) == 1
    assert streak([d, s]) == 0


@given(st.lists(st.sampled_from(list(RoundResult)), max_size=60))
def test_streak_matches_the_trailing_run(outcomes: list[RoundResult]) -> None:
    """D-SCO-4: the streak is the length of the last run of equal results, signed."""
    decided = [o for o in outcomes if o in (RoundResult.WIN, RoundResult.LOSS)]
    run = 0
    for o in reversed(decided):
        if o is not decided[-1]:
            break
        run += 1
    expected = 0 if not decided else (run if decided[-1] is RoundResult.WIN else -run)
    assert streak(outcomes) == expected


def test_group_rows_are_portfolio_sums_not_averages() -> None:
    """D-SCO-5: group ROI = sum balances / sum baselines - 1; hit rate from summed counts."""
    sharp = ArenaTally(balance=usd("50060"), baseline=BASE, wins=10, losses=0)
    busy = ArenaTally(balance=usd("49460"), baseline=BASE, wins=10, losses=90, draws=3)
    group = combine([sharp, busy])
    assert group.baseline == usd("100000")
    assert roi(group) == Fraction(usd("99520") - usd("100000"), usd("100000"))
    assert hit_rate(group) == Fraction(20, 110)
    average_of_rates = (Fraction(10, 10) + Fraction(10, 100)) / 2
    assert hit_rate(group) != average_of_rates
    assert group.draws == 3


@given(st.lists(tally_st, min_size=1, max_size=8))
def test_group_row_arithmetic_and_order_invariance(tallies: list[ArenaTally]) -> None:
    """D-SCO-5: a group's row is the sum of its accounts, whatever their order."""
    group = combine(tallies)
    shuffled = list(reversed(tallies))
    assert combine(shuffled) == group
    total_balance = sum(t.balance for t in tallies)
    total_base = sum(t.baseline for t in tallies)
    assert roi(group) == Fraction(total_balance, total_base) - 1
    decided = sum(t.wins + t.losses for t in tallies)
    expected = None if decided == 0 else Fraction(sum(t.wins for t in tallies), decided)
    assert hit_rate(group) == expected


def test_bad_tallies_are_refused() -> None:
    """D-SCO-1, D-SCO-5: a baseline must be positive; counts cannot be negative; no empty group."""
    with pytest.raises(ValueError, match="baseline"):
        ArenaTally(balance=BASE, baseline=0)
    with pytest.raises(ValueError, match="wins"):
        ArenaTally(balance=BASE, baseline=BASE, wins=-1)
    with pytest.raises(ValueError, match="at least one"):
        combine([])
