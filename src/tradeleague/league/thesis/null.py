"""A thesis board's no-skill null: the season's recorded cycles over its tape, N coin agents (ST-2).

``null_cycles`` reads the cycles a season recorded (their instants and
numbers, from its folded events) and looks up, in the season's tape, what
the event path saw there: each cycle's picture (prices, screen, eligibility)
and the price of every symbol a coin agent could hold at each of the
monitor's checks between two cycles. The recorded prices and screens must be
the tape's (a tape that differs gives no null: it is not the season's). The
prices the monitor read between cycles are not in the events, which is why
the tape is needed: ``season_tape`` loads it from the folders a replayed
season recorded; a live season's feeds cannot be read again, and its board
has no line.

``season_null`` simulates the coin agents (`tradeleague.formats.thesis.null`):
agent ``i`` is the coin-flip baseline named ``null-<i>`` in the season, its
seed derived from the season and that name as a roster's coin flipper's is
(`agent_seed`), so a replay with those entrants plays the same coins. N is
the agents on the board; the cloud holds at least ``CLOUD_AGENTS``, the first
N of them the line's, and the line's headline is ST-2's expected best of N.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Final

import numpy as np

from tradeleague.agents.seeds import agent_seed
from tradeleague.errors import DataError
from tradeleague.formats.thesis.monitor import check_times
from tradeleague.formats.thesis.null import NullCycle, coin_sides, simulate_null
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.universe import AssetClass, load_universe, normalise
from tradeleague.league.thesis.data import load_tape
from tradeleague.league.thesis.state import SeasonState
from tradeleague.money import MICRO
from tradeleague.stats.null import (
    Ints,
    NullCloud,
    NullKind,
    SeasonNull,
    expected_best,
    null_summary,
)

__all__ = [
    "BOARD_KIND",
    "CLOUD_AGENTS",
    "NULL_PREFIX",
    "board_null",
    "null_cycles",
    "null_names",
    "null_values",
    "season_null",
    "season_tape",
]

BOARD_KIND: Final = NullKind.COIN_FLIP
"""The no-skill agents behind a thesis board's luckiest-of-N line and its cloud."""
CLOUD_AGENTS: Final = 1_000
"""The fewest agents a board's baseline cloud draws (enough for a readable shape)."""
NULL_PREFIX: Final = "null-"
"""The null's agents are the coin flippers ``null-0``, ``null-1``, ... of the season."""


def null_names(agents: int) -> list[str]:
    """Return the names of the null's first ``agents`` agents, in draw order."""
    return [f"{NULL_PREFIX}{i}" for i in range(agents)]


def _seconds(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def _micros(text: object) -> int:
    return int(Decimal(str(text)) * MICRO)


def season_tape(state: SeasonState) -> MarketTape | None:
    """Return the tape of a season replayed over folders that are still there, else ``None``."""
    crypto, stocks = state.sources.get("crypto"), state.sources.get("stocks")
    if not state.replay or crypto is None or stocks is None:
        return None
    hourly = state.sources.get("stocks_hourly")
    folders = [Path(crypto), Path(stocks), *([Path(hourly)] if hourly else [])]
    if not all(f.is_dir() for f in folders):
        return None
    try:
        return load_tape(load_universe(), folders[0], folders[1], Path(hourly) if hourly else None)
    except DataError:
        return None


def null_cycles(state: SeasonState, tape: MarketTape) -> list[NullCycle] | None:
    """Return the season's recorded cycles as the coin agents meet them, or ``None``.

    ``None`` when the season recorded no cycle, or the tape's prices or screen at a
    recorded cycle are not the recorded ones.
    """
    preset, universe = state.preset, tape.universe
    recorded = list(state.cycles.values())
    pictures = []
    for row in recorded:
        moment = _seconds(str(row["round"]))
        picture = tape.picture(moment, preset)
        prices, screen = row["prices"], row["screen"]
        if not isinstance(prices, dict) or not isinstance(screen, dict):
            return None
        shown = {str(k): _micros(v) for k, v in prices.items()}
        seen = {normalise(s): int(p) for s, p in picture.prices.items()}
        crypto = [normalise(s.symbol) for s in picture.screen.crypto]
        wrote = screen.get("crypto")
        wrote_crypto = [str(r["symbol"]) for r in wrote] if isinstance(wrote, list) else None
        if any(seen.get(k) != v for k, v in shown.items()) or wrote_crypto != crypto:
            return None
        # the coin's pick: the first screened crypto with a price (``baselines._coin``)
        pick = next((s.symbol for s in picture.screen.crypto if s.symbol in picture.prices), None)
        pictures.append((moment, int(str(row["index"])), picture, pick))
    if not pictures:
        return None
    symbols = sorted({p for *_, p in pictures if p is not None})
    assert all(universe.asset_class(s) is AssetClass.CRYPTO for s in symbols)  # noqa: S101
    cycles = []
    previous: int | None = None
    for moment, index, picture, pick in pictures:
        checks: list[list[int]] = []
        if previous is not None:
            for at in check_times(previous + 1, moment + 1, preset):
                checks.append([int(tape.price_at(s, at) or 0) for s in symbols])
        cycles.append(
            NullCycle(
                index=index,
                prices=np.array([int(picture.prices.get(s, 0)) for s in symbols], dtype=np.int64),
                first=-1 if pick is None else symbols.index(pick),
                eligible=np.array([s in picture.eligible for s in symbols], dtype=np.bool_),
                checks=np.array(checks, dtype=np.int64).reshape(len(checks), len(symbols)),
            )
        )
        previous = moment
    return cycles


def null_values(state: SeasonState, cycles: Sequence[NullCycle], agents: int) -> Ints:
    """Return the final values of the null's first ``agents`` agents, in draw order."""
    seeds = [agent_seed(state.season, name) for name in null_names(agents)]
    sides = coin_sides(seeds, [c.index for c in cycles])
    return simulate_null(cycles, sides, state.preset)


def season_null(state: SeasonState, tape: MarketTape | None, agents: int) -> SeasonNull | None:
    """Return the board's null with ``agents`` agents; ``None`` without agents, tape or cycles."""
    if agents < 1 or tape is None:
        return None
    cycles = null_cycles(state, tape)
    if cycles is None:
        return None
    start_cash = int(state.preset.start_cash)
    values = null_values(state, cycles, max(agents, CLOUD_AGENTS))
    best, seasons = expected_best(values, agents, start_cash)
    return SeasonNull(
        kind=BOARD_KIND,
        seed=0,  # the base seed: agent i draws from agent_seed(season, "null-<i>")
        line=null_summary(values[:agents], start_cash, len(cycles)),
        cloud=NullCloud.of(values, start_cash, len(cycles)),
        expected_best=best,
        seasons=seasons,
    )


def board_null(state: SeasonState, tape: MarketTape | None = None) -> SeasonNull | None:
    """Return the board's null, N the agents on the board, over ``tape`` or the recorded folders."""
    agents = sum(1 for a in state.agents.values() if a.equity)
    return season_null(state, tape if tape is not None else season_tape(state), agents)
