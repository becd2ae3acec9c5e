"""The no-skill null equals the same agents replayed through events (issue 16, item 3).

For a few agents, random seeds and both kinds, each simulated agent's final
value equals, to the micro-dollar, the last entry of the same agent (the same
answers, rendered as answer text and validated) in a replay of the same bars
through the live round code (W-VAL, W-EXE-1..7, W-SCO-1). And the CLI prints
the distribution, as JSON with decimal strings.
"""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tradeleague.agents.base import Agent
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.cli import app
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division, WeightsPreset, render_answer
from tradeleague.league.weights.null import season_rounds
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import Dataset, load_dataset
from tradeleague.stats.null import NullKind, no_skill_targets, null_summary, simulate_null
from tradeleague.store import open_store

SYMBOLS = ["AAPL", "MSFT", "NVDA", "SPY", "QQQ", "SGOV", "XOM", "TSLA"]
START, END = date(2026, 6, 22), date(2026, 7, 8)


@pytest.fixture(scope="module")
def dataset(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "us_equities_daily", symbols=SYMBOLS)


def _player(name: str, answers: list[dict[str, int]]) -> Agent:
    played = iter(answers)

    def decide(_view: object) -> dict[str, int]:
        return next(played)

    def render(targets: dict[str, int] | None) -> str:
        return render_answer(targets or {}, "No skill.")

    return BaselineAgent(name, decide, render)


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    agents=st.integers(1, 4),
    kind=st.sampled_from(list(NullKind)),
    seed=st.integers(0, 2**32 - 1),
)
def test_each_simulated_agent_equals_its_replay_through_events(
    agents: int,
    kind: NullKind,
    seed: int,
    dataset: Dataset,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Same answers, same bars: the array null and the event path end on the same value."""
    preset = WeightsPreset()
    symbols, rounds = season_rounds(dataset, START, END, Division.OPEN, preset)
    assert len(rounds) >= 5
    rng = np.random.default_rng(seed)
    targets = [
        no_skill_targets(kind, rng, agents, len(symbols), preset.max_weight_bps) for _ in rounds
    ]
    values = simulate_null(rounds, targets, int(preset.start_cash), preset.rebalance)
    names = [f"n{i}" for i in range(agents)]
    players: dict[str, Agent] = {}
    for i, name in enumerate(names):
        answers = [{s: int(w) for s, w in zip(symbols, t[i], strict=True) if w} for t in targets]
        players[name] = _player(name, answers)
    roster = [RosterEntry(name=n, spec="baseline:cash", division=Division.OPEN) for n in names]
    tmp = tmp_path_factory.mktemp("null")
    with open_store(f"sqlite:///{tmp / 'events.db'}") as store:
        state = asyncio.run(
            run_season(
                store,
                FrozenBarsSource(dataset),
                roster,
                players,
                season_id="null-check",
                start=START,
                end=END,
            )
        )
    for i, name in enumerate(names):
        entries = state.agents[name].entries
        assert len(entries) == len(rounds)
        assert entries[-1].value == int(values[i])


def test_the_summary_ranks_exact_values() -> None:
    """Nearest-rank quantiles and the luckiest return, in percent of the start cash (ST-3)."""
    values = np.array([90, 100, 110, 120, 200], dtype=np.int64) * 10**6
    summary = null_summary(values, 100 * 10**6, 3)
    assert summary.to_json() == {
        "agents": 5,
        "rounds": 3,
        "quantiles": {"p5": "-10.00", "p50": "10.00", "p95": "100.00", "p99": "100.00"},
        "luckiest": "100.00",
    }


@pytest.mark.parametrize("kind", ["random-weights", "coin-flip"])
def test_cli_prints_the_null_as_json(shared_data: Path, kind: str) -> None:
    """``stats null --json``: agents, rounds, quantiles and luckiest, the same for the same seed."""
    args = [
        "stats", "null", "--format", "weights",
        "--market", str(shared_data / "us_equities_daily"),
        "--symbols", ",".join(SYMBOLS), "--start", str(START), "--end", str(END),
        "--agents", "200", "--kind", kind, "--seed", "7", "--json",
    ]  # fmt: skip

    def run() -> str:
        return CliRunner().invoke(app, args, catch_exceptions=False).stdout

    first = json.loads(run())
    assert first["agents"] == 200
    assert first["rounds"] >= 5
    assert set(first["quantiles"]) == {"p5", "p50", "p95", "p99"}
    qs = [float(first["quantiles"][k]) for k in ("p5", "p50", "p95", "p99")]
    assert qs == sorted(qs)
    assert float(first["luckiest"]) >= qs[-1]
    assert json.loads(run()) == first


def test_cli_refuses_a_bad_agent_count(shared_data: Path) -> None:
    """An agent count out of range is one sentence and exit status 2, not a traceback."""
    args = [
        "stats", "null", "--market", str(shared_data / "us_equities_daily"),
        "--symbols", "SPY", "--start", str(START), "--end", str(END), "--agents", "0",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2


def test_st_2_expected_best_averages_each_whole_seasons_best_exactly() -> None:
    """ST-2: the expected best of N is the mean of the best of each whole season of N agents."""
    from decimal import Decimal

    import numpy as np

    from tradeleague.stats.null import expected_best

    start = 100
    values = np.array([90, 130, 100, 150, 120, 110, 999], dtype=np.int64)  # 7: two seasons of 3
    best, seasons = expected_best(values, 3, start)
    assert seasons == 2
    assert best == Decimal("40.00")  # (130 + 150) / 2 = 140: +40%, the seventh left out
    assert expected_best(values, 7, start) == (Decimal("899.00"), 1)
    assert expected_best(np.array([101, 102], dtype=np.int64), 1, 300) == (Decimal("-66.17"), 2)
    with pytest.raises(ValueError, match="no season of 8"):
        expected_best(values, 8, start)
