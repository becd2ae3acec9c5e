"""The paired bootstrap against a baseline and the simulated luckiest-of-N line (ST-2)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tradeleague.stats import Resampling, expected_top_hit_rate, luckiest_of_n, paired_bootstrap


def test_same_seed_same_answer() -> None:
    """ST-2: all randomness comes from the injected generator, so a seed fixes the answer."""
    data = np.random.default_rng(1)
    agent = data.normal(0.001, 0.01, 120).tolist()
    bench = data.normal(0.0, 0.01, 120).tolist()
    first = paired_bootstrap(agent, bench, rng=np.random.default_rng(7), resamples=2000)
    again = paired_bootstrap(agent, bench, rng=np.random.default_rng(7), resamples=2000)
    other = paired_bootstrap(agent, bench, rng=np.random.default_rng(8), resamples=2000)
    assert first is not None
    assert other is not None
    assert first == again
    assert first.mean_difference == other.mean_difference
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)


def test_a_real_edge_is_distinguishable_and_a_copy_is_not() -> None:
    """ST-2: a steady edge over the benchmark is detected; the benchmark itself is not."""
    data = np.random.default_rng(2)
    bench = data.normal(0.0005, 0.01, 250)
    agent = bench + 0.002 + data.normal(0.0, 0.002, 250)
    edge = paired_bootstrap(agent.tolist(), bench.tolist(), rng=np.random.default_rng(3))
    assert edge is not None
    assert edge.distinguishable
    assert edge.ci_low > 0
    assert edge.p_value == pytest.approx(1 / (edge.resamples + 1))
    assert edge.mean_difference == pytest.approx(float(np.mean(agent - bench)), rel=1e-12)
    copy = paired_bootstrap(bench.tolist(), bench.tolist(), rng=np.random.default_rng(3))
    assert copy is not None
    assert copy.mean_difference == 0.0
    assert copy.p_value == 1.0
    assert not copy.distinguishable


def test_cash_baseline_and_exact_returns() -> None:
    """ST-2: against cash (zero returns) the test is on the agent's mean step return."""
    agent = [Fraction(1, 100), Fraction(-1, 200), Fraction(3, 1000), Fraction(0)]
    result = paired_bootstrap(agent, [0] * 4, rng=np.random.default_rng(0), resamples=500)
    assert result is not None
    assert result.steps == 4
    assert result.mean_difference == pytest.approx(float(sum(agent) / 4))
    assert result.ci_low <= result.mean_difference <= result.ci_high


def test_false_alarm_rate_is_near_its_level() -> None:
    """ST-2: with no true difference, about 5% of records come out distinguishable."""
    data = np.random.default_rng(11)
    rng = np.random.default_rng(12)
    trials = 200
    alarms = 0
    for _ in range(trials):
        d = data.standard_t(df=5, size=60) * 0.01
        result = paired_bootstrap(d.tolist(), [0.0] * 60, rng=rng, resamples=499)
        assert result is not None
        alarms += result.distinguishable
    assert 0.01 <= alarms / trials <= 0.12


def test_block_bootstrap_and_degenerate_inputs() -> None:
    """ST-2: blocks keep neighbouring steps together; too little data is None, not NaN."""
    data = np.random.default_rng(4)
    agent = data.normal(0.0, 0.01, 100).tolist()
    blocks = paired_bootstrap(agent, [0.0] * 100, rng=data, block_length=10, resamples=300)
    assert blocks is not None
    assert blocks.block_length == 10
    assert blocks.ci_low < blocks.mean_difference < blocks.ci_high
    assert paired_bootstrap([0.01], [0.0], rng=data) is None
    assert paired_bootstrap([], [], rng=data) is None
    with pytest.raises(ValueError, match="pair"):
        paired_bootstrap([0.01, 0.02], [0.0], rng=data)
    with pytest.raises(ValueError, match="block_length"):
        paired_bootstrap([0.01, 0.02], [0.0, 0.0], rng=data, block_length=3)
    with pytest.raises(ValueError, match="finite"):
        paired_bootstrap([0.01, math.inf], [0.0, 0.0], rng=data)


def test_luckiest_of_one_is_the_expected_compounded_return() -> None:
    """ST-2: one no-skill agent expects prod(1 + mean(pool)) - 1 over its steps."""
    pool = [0.02, -0.01, 0.005, -0.015, 0.01]
    result = luckiest_of_n(pool, agents=1, steps=20, rng=np.random.default_rng(5))
    expected = (1 + float(np.mean(pool))) ** 20 - 1
    assert abs(result.expected_best - expected) < 4 * result.standard_error
    assert (result.agents, result.steps, result.simulations) == (1, 20, 2000)


def test_luckiest_agrees_with_the_binomial_line() -> None:
    """ST-2, D-LCK-3: with a +/-r pool the simulated line matches F(k)^N arithmetic."""
    r, steps, agents = 0.01, 50, 15
    # The season return is monotone in the number of up-steps, so the best agent is the
    # one with most up-steps: E[best] = sum over k of P(max = k) x ((1+r)^k (1-r)^(n-k) - 1).
    cdf = np.cumsum([math.comb(steps, k) for k in range(steps + 1)]) / 2**steps
    p_max = np.diff(np.concatenate([[0.0], cdf**agents]))
    value = np.array([(1 + r) ** k * (1 - r) ** (steps - k) - 1 for k in range(steps + 1)])
    exact = float(np.sum(p_max * value))
    result = luckiest_of_n([-r, r], agents=agents, steps=steps, rng=np.random.default_rng(6))
    assert abs(result.expected_best - exact) < 4 * result.standard_error
    # The same model read as hit rates is the closed-form D-LCK-3 line.
    best_hits = float(np.sum(p_max * np.arange(steps + 1))) / steps
    assert best_hits == pytest.approx(expected_top_hit_rate(steps, agents), rel=1e-12)


def test_luckiest_rises_with_n_and_refuses_bad_pools() -> None:
    """ST-2: the best of more lucky agents is higher; impossible returns are refused."""
    pool = np.random.default_rng(9).normal(0.0, 0.02, 500).tolist()
    few = luckiest_of_n(pool, agents=2, steps=30, rng=np.random.default_rng(1), simulations=500)
    many = luckiest_of_n(pool, agents=50, steps=30, rng=np.random.default_rng(1), simulations=500)
    assert many.expected_best > few.expected_best + 4 * many.standard_error
    with pytest.raises(ValueError, match="above -1"):
        luckiest_of_n([-1.0, 0.1], agents=2, steps=3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least one"):
        luckiest_of_n([], agents=2, steps=3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="simulations"):
        luckiest_of_n([0.1], agents=2, steps=3, rng=np.random.default_rng(0), simulations=1)


@pytest.mark.parametrize("block_length", [1, 3])
def test_a_shared_resampling_is_the_same_test_as_a_bootstrap_of_its_own(block_length: int) -> None:
    """ST-2: the resamples drawn once for a table are those a lone test draws from that seed.

    Each resample of `Resampling` is the same draw of steps as `paired_bootstrap`'s
    from the same generator; only the order of the floating-point sums differs.
    """
    data = np.random.default_rng(11)
    agent = data.normal(0.001, 0.01, 40).tolist()
    bench = data.normal(0.0, 0.01, 40).tolist()
    alone = paired_bootstrap(
        agent, bench, rng=np.random.default_rng(5), resamples=3000, block_length=block_length
    )
    shared = Resampling(
        40, rng=np.random.default_rng(5), resamples=3000, block_length=block_length
    ).compare(agent, bench)
    assert alone is not None
    assert shared.steps == alone.steps == 40
    assert shared.resamples == 3000
    assert shared.block_length == block_length
    assert shared.mean_difference == pytest.approx(alone.mean_difference, rel=1e-12)
    assert shared.ci_low == pytest.approx(alone.ci_low, rel=1e-9)
    assert shared.ci_high == pytest.approx(alone.ci_high, rel=1e-9)
    assert shared.p_value == pytest.approx(alone.p_value, abs=2 / 3001)


def test_one_resampling_serves_many_agents_each_as_if_alone() -> None:
    """ST-2: a test read off a shared resampling does not depend on the other tests."""
    data = np.random.default_rng(12)
    series = [data.normal(0.0005 * i, 0.01, 25).tolist() for i in range(4)]
    zeros = [0.0] * 25
    shared = Resampling(25, rng=np.random.default_rng(9))
    together = [shared.compare(s, zeros) for s in series]
    for s, seen in zip(series, together, strict=True):
        fresh = Resampling(25, rng=np.random.default_rng(9))
        assert fresh.compare(s, zeros) == seen
    assert together[3].p_value < together[0].p_value  # a larger edge is less likely luck


def test_a_resampling_refuses_what_it_cannot_test() -> None:
    """ST-2: too few steps, series of another length and bad parameters are refused."""
    rng = np.random.default_rng(1)
    with pytest.raises(ValueError, match="two or more steps"):
        Resampling(1, rng=rng)
    with pytest.raises(ValueError, match="resamples"):
        Resampling(5, rng=rng, resamples=0)
    with pytest.raises(ValueError, match="block_length"):
        Resampling(5, rng=rng, block_length=6)
    five = Resampling(5, rng=rng, resamples=100)
    with pytest.raises(ValueError, match="of 5 steps, the series of 4"):
        five.compare([0.0] * 4, [0.0] * 4)
    with pytest.raises(ValueError, match="finite"):
        five.compare([0.0, 0.0, 0.0, 0.0, math.nan], [0.0] * 5)
    with pytest.raises(ValueError, match="confidence"):
        five.compare([0.0] * 5, [0.0] * 5, confidence=1.0)


def test_many_tests_at_once_give_each_lone_compare_to_the_bit() -> None:
    """ST-2: a table's tests taken together are each `compare`'s, mean, p-value and verdict.

    Seventy series cross the block of series counted at once; they include a
    copy of the baseline (no difference at all) and a steady edge.
    """
    data = np.random.default_rng(21)
    bench = data.normal(0.0, 0.01, 19).tolist()
    series = [data.normal(0.0004 * (i % 7), 0.01, 19).tolist() for i in range(68)]
    series += [bench, [b + 0.004 for b in bench]]
    shared = Resampling(19, rng=np.random.default_rng(4))
    for confidence in (0.95, 0.8):
        together = shared.test_many([(s, bench) for s in series], confidence=confidence)
        assert len(together) == len(series)
        for s, seen in zip(series, together, strict=True):
            alone = shared.compare(s, bench, confidence=confidence)
            assert (seen.mean_difference, seen.p_value) == (alone.mean_difference, alone.p_value)
            assert seen.distinguishable is alone.distinguishable
            assert (seen.steps, seen.resamples, seen.confidence) == (19, 10_000, confidence)
    assert together[-1].distinguishable
    assert not together[-2].distinguishable
    with pytest.raises(ValueError, match="of 19 steps, the series of 4"):
        shared.test_many([(bench, bench), ([0.0] * 4, [0.0] * 4)])
