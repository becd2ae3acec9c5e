"""A scenario board's verdicts and luckiest-of-N line, as the weights board's (ST-1, ST-2).

Each published run is one record: its equity after every step (the path the
run's ``ScenarioRunCompleted`` event holds) is an entry per bar, and the same
test as the weights league's tables (``formats.weights.luck``: a paired
bootstrap of the per-step return difference against cash and against
buy-and-hold of the benchmark) runs over them. The benchmark is ``SPY`` when
the scenario trades it, else its first symbol; its prices are the scenario's
closes at the same bars. All runs of a scenario share its bars, so the rows
are compared over the same steps.

The luckiest-of-N line is the board's no-skill null
(``formats.scenario.null.scenario_null``): N coin-flip agents, N the board's
runs, stepped through the scenario's bars under its own fill, leverage and
liquidation rules, and a cloud of at least ``CLOUD_AGENTS`` drawn the same way.

A run recorded before the completion event held its equity path has no
entries: its verdicts read "too few entries", never a guess.

Pure: the draws come from generators seeded by the scenario id and a label
(the verdicts) or an agent's index (the null).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from tradeleague.formats.scenario.bars import ScenarioBars
from tradeleague.formats.scenario.config import ScenarioConfig
from tradeleague.formats.scenario.null import scenario_null
from tradeleague.formats.weights.luck import (
    AgentLuck,
    TableLuck,
    agent_luck,
    benchmark_symbol,
    table_luck,
)
from tradeleague.formats.weights.scoring import AgentRecord, Entry, EntryKind

__all__ = ["RunRecord", "run_luck", "scenario_luck", "scenario_rng"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord:
    """What the leaderboard's ST columns need of one published run, read from its events.

    Attributes
    ----------
    run_id
        The run.
    equity
        Starting cash, then equity after each step (micro-dollars); empty when
        the record does not hold the path.
    trades
        Fills recorded for the run (``OrderFilled`` events).
    """

    run_id: str
    equity: tuple[int, ...]
    trades: int


def scenario_rng(scenario_id: str, label: str) -> np.random.Generator:
    """Return the generator of ``label`` on a scenario's board, seeded from the scenario id."""
    text = f"{scenario_id}/{label}".encode()
    return np.random.default_rng(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest()))


def _record(run: RunRecord, bars: ScenarioBars, created: datetime) -> AgentRecord:
    entries = [
        Entry(round=bars.timestamp(k), kind=EntryKind.DECISION, value=run.equity[k])
        for k in range(1, min(len(run.equity), len(bars)))
    ]
    return AgentRecord(
        agent=run.run_id, name=run.run_id, created_at=created, entries=entries, trades=run.trades
    )


def _benchmark(
    bars: ScenarioBars, config: ScenarioConfig
) -> tuple[str | None, dict[datetime, int]]:
    """Return the benchmark's symbol and its close at each bar (none without a symbol)."""
    symbol = benchmark_symbol(list(config.symbols))
    prices = (
        {bars.timestamp(k): int(bars.closes(k)[symbol]) for k in range(len(bars))}
        if symbol is not None
        else {}
    )
    return symbol, prices


def run_luck(
    scenario_id: str, run: RunRecord, bars: ScenarioBars, config: ScenarioConfig
) -> AgentLuck:
    """Return one run's verdicts and its beta and alpha, as its row on the board has them.

    The draws are labelled by the run, so they equal the board's whatever else is on it.
    """
    _, prices = _benchmark(bars, config)
    return agent_luck(
        _record(run, bars, bars.timestamp(0)),
        start_cash=int(config.cash),
        benchmark_prices=prices,
        rng_for=lambda label: scenario_rng(scenario_id, label),
    )


def scenario_luck(
    scenario_id: str, runs: Sequence[RunRecord], bars: ScenarioBars, config: ScenarioConfig
) -> TableLuck:
    """Return every run's verdicts and the board's luckiest-of-N line (its no-skill null).

    Parameters
    ----------
    scenario_id
        The scenario (seeds the draws, so a board reads the same every time).
    runs
        The board's published runs (N counts them all).
    bars
        The scenario's frozen bars.
    config
        The scenario's rules: its universe, in order (picks the benchmark), its
        starting cash, and the fill rules its no-skill agents trade under.
    """
    symbol, prices = _benchmark(bars, config)
    created = bars.timestamp(0)
    return table_luck(
        [_record(r, bars, created) for r in runs],
        start_cash=int(config.cash),
        benchmark=symbol,
        benchmark_prices=prices,
        rng_for=lambda label: scenario_rng(scenario_id, label),
        null=scenario_null(scenario_id, bars, config, len(runs)),
        simulated=True,
    )
