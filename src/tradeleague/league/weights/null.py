"""The no-skill null of a weights season: its rounds from the event path, then N agents in arrays.

``state_rounds`` reads a season's rounds from its folded events: each round
an agent of the division is due in, with the prices and halts its
``RoundStarted`` recorded, over the season's symbols. ``season_rounds``
replays bars with one cash agent, with the live round code, into a
throw-away store, and reads the rounds back the same way: so the null trades
at exactly the prices, on exactly the rounds, that a replay of the same bars
would (market closures, held prices and halts included). ``null_values`` then
simulates the agents (`tradeleague.stats.null`).

``season_null`` is a board's null: the same simulation over a recorded
season's own rounds, its seed derived from the season and the division
(``null_seed``), N the agents in the division's table, and a cloud of at
least ``CLOUD_AGENTS`` agents drawn with the same seed (the same run when N
is that large). ``tradeleague stats null`` over the season's bars, with that
seed and N, prints the same figures.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from tradeleague.errors import ConfigError
from tradeleague.formats.weights import Division, WeightsPreset
from tradeleague.formats.weights.rounds import is_due
from tradeleague.league.weights.state import SeasonState
from tradeleague.stats.null import (
    MAX_AGENTS,
    Ints,
    NullCloud,
    NullKind,
    NullRound,
    SeasonNull,
    expected_best,
    no_skill_targets,
    null_summary,
    simulate_null,
)

if TYPE_CHECKING:
    from tradeleague.market import Dataset

__all__ = [
    "BOARD_KIND",
    "CLOUD_AGENTS",
    "NULL",
    "NullDraw",
    "SeasonNull",
    "WeightsNull",
    "null_seed",
    "null_values",
    "season_null",
    "season_rounds",
    "state_rounds",
]

_PROBE = "null-probe"

BOARD_KIND: Final = NullKind.RANDOM_WEIGHTS
"""The no-skill agents behind a board's luckiest-of-N line and its cloud."""
CLOUD_AGENTS: Final = 1_000
"""The fewest agents a board's baseline cloud draws (enough for a readable shape)."""


def null_seed(season_id: str, division: Division) -> int:
    """Return the seed of a division's null, derived from the season id (below 2**63)."""
    text = f"{season_id}/{division.value}/null".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def state_rounds(state: SeasonState, division: Division) -> tuple[tuple[str, ...], list[NullRound]]:
    """Return the season's symbols and the recorded rounds an agent of ``division`` is due in."""
    symbols = tuple(state.symbols)
    rounds = [
        NullRound(
            np.array([int(r.prices[s]) for s in symbols], dtype=np.int64),
            np.array([s in r.halted for s in symbols], dtype=np.bool_),
        )
        for r in state.rounds
        if is_due(division, r.open_round)
    ]
    return symbols, rounds


def season_rounds(
    dataset: Dataset, start: date, end: date, division: Division, preset: WeightsPreset
) -> tuple[tuple[str, ...], list[NullRound]]:
    """Return the symbols and the rounds an agent of ``division`` trades in, replaying bars."""
    # the replay's machinery only here: a board's null reads a recorded season instead
    from tradeleague.agents.spec import parse_agent_spec
    from tradeleague.feeds import FrozenBarsSource
    from tradeleague.league.weights.agents import build_agents
    from tradeleague.league.weights.replay import RosterEntry, run_season
    from tradeleague.store import open_store

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
        finally:
            store.close()
    return state_rounds(state, division)


def null_values(
    dataset: Dataset,
    start: date,
    end: date,
    *,
    agents: int,
    kind: NullKind,
    seed: int,
    division: Division,
    preset: WeightsPreset,
) -> tuple[Ints, int]:
    """Return the final values of ``agents`` no-skill agents, in draw order, and the rounds.

    Raises
    ------
    ConfigError
        If the number of agents is out of range or no round falls in the days.
    """
    if not 1 <= agents <= MAX_AGENTS:
        raise ConfigError(f"--agents must be between 1 and {MAX_AGENTS:,}")
    symbols, rounds = season_rounds(dataset, start, end, division, preset)
    if not rounds:
        raise ConfigError(f"no round with open markets between {start} and {end}")
    values = _simulate(len(symbols), rounds, agents=agents, kind=kind, seed=seed, preset=preset)
    return values, len(rounds)


def _simulate(
    symbols: int,
    rounds: list[NullRound],
    *,
    agents: int,
    kind: NullKind,
    seed: int,
    preset: WeightsPreset,
) -> Ints:
    rng = np.random.default_rng(seed)
    cap = preset.max_weight_bps
    targets = [no_skill_targets(kind, rng, agents, symbols, cap) for _ in rounds]
    return simulate_null(rounds, targets, int(preset.start_cash), preset.rebalance)


def season_null(state: SeasonState, division: Division, agents: int) -> SeasonNull | None:
    """Return ``division``'s null with ``agents`` agents; ``None`` with no agent or no round."""
    symbols, rounds = state_rounds(state, division)
    if agents < 1 or not rounds:
        return None
    seed = null_seed(state.season_id, division)
    start_cash = int(state.preset.start_cash)
    many = max(agents, CLOUD_AGENTS)

    def simulate(n: int) -> Ints:
        return _simulate(
            len(symbols), rounds, agents=n, kind=BOARD_KIND, seed=seed, preset=state.preset
        )

    cloud_values = simulate(many)
    line_values = cloud_values if many == agents else simulate(agents)
    best, seasons = expected_best(cloud_values, agents, start_cash)
    return SeasonNull(
        kind=BOARD_KIND,
        seed=seed,
        line=null_summary(line_values, start_cash, len(rounds)),
        cloud=NullCloud.of(cloud_values, start_cash, len(rounds)),
        expected_best=best,
        seasons=seasons,
    )


@dataclass(frozen=True, slots=True)
class NullDraw:
    """No-skill agents' final values (draw order), the rounds played and the starting cash."""

    values: Ints
    rounds: int
    start_cash: int


@dataclass(frozen=True, slots=True)
class WeightsNull:
    """The weights league's null for ``tradeleague stats null`` (``cli.plugin.NullPart``)."""

    def simulate(
        self,
        *,
        market: Path,
        symbols: list[str] | None,
        start: date,
        end: date,
        agents: int,
        kind: NullKind,
        seed: int,
        division: str,
    ) -> NullDraw:
        """Simulate ``agents`` no-skill agents on the rounds a replay of ``market`` plays.

        Raises
        ------
        ConfigError
            An unknown ``division``, unreadable bars, or no round in the days.
        """
        try:
            chosen = Division(division)
        except ValueError:
            raise ConfigError(
                f"--division {division[:40]!r}: " + " or ".join(d.value for d in Division)
            ) from None
        from tradeleague.market import load_dataset

        dataset = load_dataset(market, symbols=symbols)
        preset = WeightsPreset()
        values, rounds = null_values(
            dataset, start, end, agents=agents, kind=kind, seed=seed, division=chosen,
            preset=preset,
        )  # fmt: skip
        return NullDraw(values, rounds, int(preset.start_cash))


NULL: Final = WeightsNull()
"""The part the ``weights`` format names as ``null``."""
