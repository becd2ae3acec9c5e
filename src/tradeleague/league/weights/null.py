"""The no-skill null of a weights season: its rounds from the event path, then N agents in arrays.

``season_rounds`` replays the season with one cash agent, with the live round
code, into a throw-away store, and reads back each round its agent was due
in: the prices and halts its ``RoundStarted`` recorded. So the null trades at
exactly the prices, on exactly the rounds, that a replay of the same bars
would (market closures, held prices and halts included). ``run_null`` then
simulates the agents (`tradeleague.stats.null`).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import numpy as np

from tradeleague.agents.spec import parse_agent_spec
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division, WeightsPreset
from tradeleague.league.weights import events as ev
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import Dataset
from tradeleague.stats.null import (
    MAX_AGENTS,
    NullKind,
    NullRound,
    NullSummary,
    no_skill_targets,
    null_summary,
    simulate_null,
)
from tradeleague.store import open_store

__all__ = ["run_null", "season_rounds"]

_PROBE = "null-probe"


def season_rounds(
    dataset: Dataset, start: date, end: date, division: Division, preset: WeightsPreset
) -> tuple[tuple[str, ...], list[NullRound]]:
    """Return the season's symbols and the rounds an agent of ``division`` trades in."""
    spec = f"{_PROBE}=baseline:cash"
    parse_agent_spec(spec)
    _parsed, agents, _gateway = build_agents([spec])
    roster = [RosterEntry(name=_PROBE, spec="baseline:cash", division=division)]
    with tempfile.TemporaryDirectory(prefix="tradeleague-null-") as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'null.db'}")
        try:
            state = asyncio.run(
                run_season(
                    store,
                    FrozenBarsSource(dataset),
                    roster,
                    agents,
                    season_id="null",
                    start=start,
                    end=end,
                    preset=preset,
                )
            )
            started = [
                s.event.payload
                for s in store.events(ev.season_stream("null"))
                if s.event.kind == EventKind.ROUND_STARTED
            ]
        finally:
            store.close()
    symbols = tuple(state.symbols)
    rounds = []
    for payload in started:
        due = payload["due"]
        if not isinstance(due, list) or _PROBE not in due:
            continue
        prices = payload["prices"]
        halted = payload["halted"]
        if not isinstance(prices, Mapping) or not isinstance(halted, Mapping):
            raise ConfigError("a recorded round lacks its prices")  # pragma: no cover
        rounds.append(
            NullRound(
                np.array([int(str(prices[s])) for s in symbols], dtype=np.int64),
                np.array([s in halted for s in symbols], dtype=np.bool_),
            )
        )
    return symbols, rounds


def run_null(
    dataset: Dataset,
    start: date,
    end: date,
    *,
    agents: int,
    kind: NullKind,
    seed: int,
    division: Division = Division.OPEN,
    preset: WeightsPreset | None = None,
) -> NullSummary:
    """Simulate ``agents`` no-skill agents over the season and summarise their returns.

    Raises
    ------
    ConfigError
        If the number of agents is out of range or no round falls in the days.
    """
    if not 1 <= agents <= MAX_AGENTS:
        raise ConfigError(f"--agents must be between 1 and {MAX_AGENTS:,}")
    preset = preset or WeightsPreset()
    symbols, rounds = season_rounds(dataset, start, end, division, preset)
    if not rounds:
        raise ConfigError(f"no round with open markets between {start} and {end}")
    rng = np.random.default_rng(seed)
    targets = [
        no_skill_targets(kind, rng, agents, len(symbols), preset.max_weight_bps) for _ in rounds
    ]
    start_cash = int(preset.start_cash)
    values = simulate_null(rounds, targets, start_cash, preset.rebalance)
    return null_summary(values, start_cash, len(rounds))
