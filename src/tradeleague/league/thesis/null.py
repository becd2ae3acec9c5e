"""A thesis board's no-skill null: the season's recorded cycles and prices, N coin agents (ST-2).

``null_cycles`` reads the cycles a season recorded (their instants, numbers,
screens and prices, from its folded events) and, for each, what the coin
agents read there beyond the picture: the price of the one symbol a coin
agent could hold since the cycle before (the coin's pick then) at every
monitor check in between and at the cycle, and whether the cycle's pick may
be opened. A season records these as each cycle's ``NullPricesRead``
(`null_prices_payload` writes them, live or replayed), so its line rests on
its record alone. Over a tape (``season_tape`` loads the folders a replayed
season recorded, while they are there) the same payloads are derived from
the tape: a record written before it held them still gets its line, and
where both exist they must agree, as the recorded prices and screens must be
the tape's; a tape that differs gives no null: it is not the season's.

``season_null`` simulates the coin agents (`tradeleague.formats.thesis.null`):
agent ``i`` is the coin-flip baseline named ``null-<i>`` in the season, its
seed derived from the season and that name as a roster's coin flipper's is
(`agent_seed`), so a replay with those entrants plays the same coins. N is
the agents on the board; the cloud holds at least ``CLOUD_AGENTS``, the first
N of them the line's, and the line's headline is ST-2's expected best of N.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Final

import numpy as np

from tradeleague.agents.seeds import agent_seed
from tradeleague.errors import DataError
from tradeleague.events import utc_iso
from tradeleague.formats.thesis.monitor import check_times
from tradeleague.formats.thesis.null import NullCycle, coin_sides, simulate_null
from tradeleague.formats.thesis.picture import MarketTape, Picture
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe, normalise
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
    "coin_pick",
    "null_cycles",
    "null_names",
    "null_prices_payload",
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


def _iso(seconds: int) -> str:
    return utc_iso(datetime.fromtimestamp(seconds, UTC))


def _micros(text: object) -> int:
    return int(Decimal(str(text)) * MICRO)


def coin_pick(row: Mapping[str, object]) -> str | None:
    """Return the coin's pick at a recorded cycle: its first screened crypto with a price.

    ``row`` is the cycle's ``RoundStarted`` payload; the name is normalised, as
    recorded (``baselines._coin`` opens the same one).
    """
    screen, prices = row.get("screen"), row.get("prices")
    crypto = screen.get("crypto") if isinstance(screen, dict) else None
    if not isinstance(crypto, list) or not isinstance(prices, dict):
        return None
    names = (str(r.get("symbol")) for r in crypto if isinstance(r, dict))
    return next((n for n in names if n in prices), None)


def null_prices_payload(
    tape: MarketTape,
    picture: Picture,
    index: int,
    previous: Mapping[str, object] | None,
    preset: ThesisPreset,
) -> dict[str, object]:
    """Return the ``NullPricesRead`` payload of cycle ``index`` at ``picture``'s instant.

    Parameters
    ----------
    tape
        The prices the cycle's monitor read (frozen folders or live feeds).
    picture
        The cycle's picture.
    index
        The cycle's number.
    previous
        The ``RoundStarted`` payload of the cycle recorded before, ``None`` for none.
    preset
        The monitor's step.

    Returns
    -------
    dict
        The symbol a coin agent may hold since ``previous`` (its coin pick), that
        symbol's price at every monitor check after ``previous`` up to and including
        this instant and at the cycle, as micro-dollar integer strings, and this
        cycle's pick and whether it may be opened.
    """
    moment = picture.moment
    held = None if previous is None else coin_pick(previous)
    symbol = None if held is None else tape.universe.provider_symbol(held)
    checks: dict[str, object] = {}
    price: str | None = None
    if previous is not None and symbol is not None:
        after = _seconds(str(previous["round"]))
        for at in check_times(after + 1, moment + 1, preset):
            seen = tape.price_at(symbol, at)
            checks[_iso(at)] = None if seen is None else str(int(seen))
        now = picture.prices.get(symbol)
        price = None if now is None else str(int(now))
    pick = next((s.symbol for s in picture.screen.crypto if s.symbol in picture.prices), None)
    return {
        "round": _iso(moment),
        "index": index,
        "held": held,
        "checks": checks,
        "price": price,
        "pick": None if pick is None else normalise(pick),
        "eligible": pick is not None and pick in picture.eligible,
    }


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


def _from_tape(
    state: SeasonState, tape: MarketTape, rows: Sequence[dict[str, object]]
) -> list[dict[str, object]] | None:
    """Return each recorded cycle's null prices as ``tape`` gives them; ``None``: not its tape."""
    payloads: list[dict[str, object]] = []
    previous: dict[str, object] | None = None
    for row in rows:
        picture = tape.picture(_seconds(str(row["round"])), state.preset)
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
        index = int(str(row["index"]))
        payloads.append(null_prices_payload(tape, picture, index, previous, state.preset))
        previous = row
    return payloads


def _price(text: object) -> int:
    return 0 if text is None else int(str(text))


def null_cycles(state: SeasonState, tape: MarketTape | None = None) -> list[NullCycle] | None:
    """Return the season's recorded cycles as the coin agents meet them, or ``None``.

    The prices come from the record's ``NullPricesRead`` events, or from ``tape``
    for cycles recorded without them. ``None`` when the season recorded no cycle,
    a cycle lacks its null prices and there is no tape, the tape's prices or
    screen at a recorded cycle are not the recorded ones, or the recorded null
    prices are not the tape's or not the record's own (another pick, a check missing).
    """
    rows = list(state.cycles.values())
    if not rows:
        return None
    derived = None if tape is None else _from_tape(state, tape, rows)
    if tape is not None and derived is None:
        return None
    payloads: list[dict[str, object]] = []
    for i, row in enumerate(rows):
        own = state.null_prices.get(str(row["round"]))
        if derived is not None:
            if own is not None and own != derived[i]:
                return None  # the record's null prices are not the tape's
            own = derived[i]
        if own is None:
            return None  # recorded before the null's prices were, and no tape
        payloads.append(own)
    return _cycles(state.preset, rows, payloads)


def _cycles(
    preset: ThesisPreset, rows: Sequence[dict[str, object]], payloads: Sequence[dict[str, object]]
) -> list[NullCycle] | None:
    """Return the null's cycles from the recorded pictures and null prices, ``None`` if at odds."""
    symbols = sorted({str(p["pick"]) for p in payloads if p["pick"] is not None})
    cycles = []
    previous: dict[str, object] | None = None
    for row, paid in zip(rows, payloads, strict=True):
        moment, index = _seconds(str(row["round"])), int(str(row["index"]))
        pick, held = paid["pick"], paid["held"]
        checks = paid["checks"]
        prices = row["prices"]
        expected = None if previous is None else coin_pick(previous)
        if (
            paid["round"] != row["round"]
            or paid["index"] != index
            or pick != coin_pick(row)
            or held != expected
            or not isinstance(checks, dict)
            or not isinstance(prices, dict)
        ):
            return None
        at = np.zeros(len(symbols), dtype=np.int64)
        seen = np.zeros((0, len(symbols)), dtype=np.int64)
        if held is not None:
            assert previous is not None  # noqa: S101 - a held symbol has a cycle before
            times = check_times(_seconds(str(previous["round"])) + 1, moment + 1, preset)
            if list(checks) != [_iso(t) for t in times]:
                return None  # every check the monitor ran, in order
            col = symbols.index(str(held))
            seen = np.zeros((len(checks), len(symbols)), dtype=np.int64)
            seen[:, col] = [_price(v) for v in checks.values()]
            at[col] = _price(paid["price"])
        first = -1
        eligible = np.zeros(len(symbols), dtype=np.bool_)
        if pick is not None:
            first = symbols.index(str(pick))
            shown = _micros(prices[str(pick)])
            if pick == held and at[first] != shown:
                return None
            at[first] = shown
            eligible[first] = bool(paid["eligible"])
        cycles.append(
            NullCycle(index=index, prices=at, first=first, eligible=eligible, checks=seen)
        )
        previous = row
    return cycles


def null_values(state: SeasonState, cycles: Sequence[NullCycle], agents: int) -> Ints:
    """Return the final values of the null's first ``agents`` agents, in draw order."""
    seeds = [agent_seed(state.season, name) for name in null_names(agents)]
    sides = coin_sides(seeds, [c.index for c in cycles])
    return simulate_null(cycles, sides, state.preset)


def season_null(state: SeasonState, tape: MarketTape | None, agents: int) -> SeasonNull | None:
    """Return the board's null with ``agents`` agents; ``None`` without agents or cycles.

    ``None`` too where the record cannot be read or simulated exactly (a price
    that is not a number, a held symbol without a price at a cycle): never a
    guess, never an error on a board read.

    Its prices are the record's, checked against ``tape`` where one is given.
    """
    if agents < 1:
        return None
    try:
        cycles = null_cycles(state, tape)
        if cycles is None:
            return None
        values = null_values(state, cycles, max(agents, CLOUD_AGENTS))
    except (ValueError, TypeError, KeyError, OverflowError):
        # a record the null cannot read (a price that is not a number, or too large for
        # its arrays) or cannot simulate exactly (a held symbol without a price): no line
        return None
    start_cash = int(state.preset.start_cash)
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
    """Return the board's null, N the agents on the board, from its record.

    The record's prices are checked against ``tape``, or the recorded folders
    while they are there, which also give the prices a record written before
    ``NullPricesRead`` lacks.
    """
    agents = sum(1 for a in state.agents.values() if a.equity)
    return season_null(state, tape if tape is not None else season_tape(state), agents)
