"""The scenario board's no-skill null equals the same agents stepped through the run (ST-2).

For a few agents, random synthetic markets (some with gaps between a close and
the next open, so that leverage rejections and liquidations happen) and random
rules, each agent's final equity from the array null equals, to the
micro-dollar, the same agent's orders queued and stepped one bar at a time
through ``formats.scenario.run.step`` (S-FIL-1..5, S-LIQ-1, S-SCO-1). The
board's luckiest-of-N figure is the null's expected best of N (ST-2), and the
null is the same on every read.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.formats.scenario import (
    LEVERAGE_CAPS,
    ScenarioBars,
    ScenarioConfig,
    ServicePreset,
    queue_orders,
    start_run,
    step,
)
from tradeleague.formats.scenario.luck import RunRecord, scenario_luck
from tradeleague.formats.scenario.null import (
    CLOUD_AGENTS,
    agent_directions,
    coin_flip_orders,
    null_seed,
    null_values,
    scenario_null,
    simulate_null,
)
from tradeleague.market import synthetic_dataset
from tradeleague.stats.null import expected_best, null_summary

START, END = datetime(2020, 1, 1, tzinfo=UTC), datetime(2030, 1, 1, tzinfo=UTC)


def _bars(symbols: int, bars: int, seed: int, gaps: bool) -> ScenarioBars:
    """Return synthetic bars; with ``gaps``, each open moved from -40% to +80% of itself."""
    names = tuple(f"S{i}" for i in range(symbols))
    data = synthetic_dataset(symbols, bars, seed=seed, symbols=names, volatility=1.0)
    frozen = ScenarioBars.from_dataset(data, names)
    if not gaps:
        return frozen
    rng = np.random.default_rng(seed)
    values = {}
    for s in frozen.symbols:
        opens, *rest = frozen.values[s]
        moved = rng.uniform(0.6, 1.8, size=len(opens))
        values[s] = (tuple(max(1, int(o * m)) for o, m in zip(opens, moved, strict=True)), *rest)
    return ScenarioBars(frozen.symbols, frozen.times, values, frozen.dropped)


def _config(bars: ScenarioBars, cap: int, short: bool, slippage: int) -> ScenarioConfig:
    return ScenarioConfig(
        name="null-check",
        symbols=bars.symbols,
        start=START,
        end=END,
        leverage_cap=cap,
        allow_short=short,
        slippage_bps=dict.fromkeys(bars.symbols, slippage),
    )


def _stepped(
    bars: ScenarioBars, config: ScenarioConfig, coins: np.ndarray
) -> tuple[int, int, bool]:
    """Return the agent's final equity through the event path, its rejections, and liquidation."""
    state = start_run(config)
    rules = config.order_rules()
    equity, rejected, liquidated = int(config.cash), 0, False
    while not state.done:
        orders = coin_flip_orders(
            state.portfolio, bars.closes(state.index), coins[state.index], config.symbols
        )
        state = queue_orders(state, orders, config, max_queued=ServicePreset().max_queued)
        state, report = step(state, bars, config, rules=rules)
        equity, rejected = int(report.equity), rejected + len(report.rejected)
        liquidated = liquidated or report.liquidated
    return equity, rejected, liquidated


@settings(max_examples=40, deadline=None)
@given(
    symbols=st.integers(1, 4),
    length=st.integers(2, 30),
    market=st.integers(0, 2**32 - 1),
    seed=st.integers(0, 2**62),
    agents=st.integers(1, 5),
    cap=st.sampled_from(LEVERAGE_CAPS),
    short=st.booleans(),
    slippage=st.sampled_from([0, 3, 8, 20, 250]),
    gaps=st.booleans(),
)
def test_st2_each_simulated_agent_equals_its_orders_stepped_through_the_run(
    symbols: int,
    length: int,
    market: int,
    seed: int,
    agents: int,
    cap: int,
    short: bool,
    slippage: int,
    gaps: bool,
) -> None:
    """ST-2, S-FIL-1..5, S-LIQ-1: the array null ends every agent where ``run.step`` does."""
    bars = _bars(symbols, length, market, gaps)
    config = _config(bars, cap, short, slippage)
    coins = np.stack(
        [agent_directions(seed, i, len(bars) - 1, symbols, short) for i in range(agents)]
    )
    values = simulate_null(bars, config, coins)
    for i in range(agents):
        assert _stepped(bars, config, coins[i])[0] == int(values[i])


def test_the_equality_covers_rejections_and_liquidations() -> None:
    """S-FIL-5, S-LIQ-1: gapped markets make the agents meet both rules, and still agree."""
    rejected = liquidated = 0
    for market in range(12):
        bars = _bars(3, 25, market, gaps=True)
        config = _config(bars, LEVERAGE_CAPS[market % len(LEVERAGE_CAPS)], market % 2 == 0, 8)
        coins = np.stack(
            [agent_directions(market, i, len(bars) - 1, 3, config.allow_short) for i in range(4)]
        )
        values = simulate_null(bars, config, coins)
        for i in range(4):
            equity, rejects, forced = _stepped(bars, config, coins[i])
            assert equity == int(values[i])
            rejected += rejects > 0
            liquidated += forced
    assert rejected > 0
    assert liquidated > 0


def test_coins_flip_about_flips_times_a_run_and_short_only_where_allowed() -> None:
    """S-FIL-4: a long-only scenario's agents never short; the coins hold between flips."""
    long_only = agent_directions(7, 0, 400, 3, allow_short=False)
    assert set(np.unique(long_only)) <= {0, 1}
    both = agent_directions(7, 0, 400, 3, allow_short=True)
    assert set(np.unique(both)) == {-1, 0, 1}
    changes = int((both[1:] != both[:-1]).sum())
    assert 0 < changes < 3 * 400 // 4  # kept between flips, not drawn afresh each step


def test_st2_the_board_line_is_the_null_expected_best_of_n() -> None:
    """ST-2: N the board's runs, the figure the best of N averaged over the cloud's seasons."""
    bars = _bars(2, 30, 3, gaps=False)
    config = _config(bars, 2, True, 8)
    runs = [RunRecord(run_id=f"r{i}", equity=(), trades=0) for i in range(3)]
    luck = scenario_luck("scn-1", runs, bars, config)
    null = scenario_null("scn-1", bars, config, 3)
    assert null is not None
    cloud = null_values("scn-1", bars, config, CLOUD_AGENTS)
    best, seasons = expected_best(cloud, 3, int(config.cash))
    assert (null.expected_best, null.seasons) == (best, seasons) == (best, CLOUD_AGENTS // 3)
    line = luck.to_payload()["luckiest_of_n"]
    assert line["expected_best"] == str(best)
    assert line["agents"] == 3
    assert line["seasons"] == seasons
    assert line["rounds"] == len(bars) - 1
    assert line["kind"] == "coin-flip"
    assert line["seed"] == null_seed("scn-1")
    assert line["method"] == "simulated under the scenario's rules"
    assert null.cloud.summary.agents == CLOUD_AGENTS
    # the line's N agents are the first N of the cloud
    assert null.line == null_summary(cloud[:3], int(config.cash), len(bars) - 1)
    assert np.array_equal(null.cloud.values, np.sort(cloud))


def test_st2_the_null_is_the_same_on_every_read_and_its_own_per_scenario() -> None:
    """ST-2: seeded by the scenario id and the agent's index, never by the clock."""
    bars = _bars(2, 20, 5, gaps=False)
    config = _config(bars, 1, False, 8)
    runs = [RunRecord(run_id=f"r{i}", equity=(), trades=0) for i in range(4)]
    first = null_values("scn-a", bars, config, 50)
    assert np.array_equal(first, null_values("scn-a", bars, config, 50))
    assert np.array_equal(first[:10], null_values("scn-a", bars, config, 10))
    assert not np.array_equal(first, null_values("scn-b", bars, config, 50))
    lines = [scenario_luck("scn-a", runs, bars, config).to_payload() for _ in range(2)]
    assert lines[0] == lines[1]
    assert scenario_null("scn-a", bars, config, 0) is None
