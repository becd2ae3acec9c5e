"""Replaying the direction arena over frozen one-minute candles (the same code as live).

``replay_direction`` runs every five-minute round between two instants on a
``ReplayClock``, with a ``FrozenCandles`` source (no look-ahead) and, by
default, the built-in ``PaperBroker`` at the given payout; then it folds the
recorded events into the board. Model latency is the agent's reported
latency (recorded, or simulated by ``agents.latency.SimulatedLatency``), so timeouts and
late answers happen in replay as they would live (see ``pacing``).

Recorded answers (C-5): ``recorded_answers`` reads an arena stream's
``ModelCalled`` events back for a ``ReplayGateway``. Call keys name the season
(``S1``, ``S2``... in the order the stream opened them), the round id and the
model, so a replay of the same span into an empty stream asks exactly the
recorded calls.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from tradeleague.agents.recorded import NotACallRecord, calls_in
from tradeleague.broker.base import Broker
from tradeleague.broker.paper import PaperBroker
from tradeleague.clock import ReplayClock
from tradeleague.collect import collecting_less
from tradeleague.errors import ConfigError
from tradeleague.events import utc_iso
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.feeds.candles.frozen import FrozenCandles
from tradeleague.formats.direction.board import Board, build_board
from tradeleague.formats.direction.ledger import Ledger, fold
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.restart import ArenaRecord, read_record
from tradeleague.formats.direction.timing import round_opens, round_times
from tradeleague.league.check import AgentCheck, CheckPacing, judge_turns
from tradeleague.league.direction.arena import Contestant, DirectionArena
from tradeleague.league.pacing import ReplayPacing
from tradeleague.llm.replay import RecordedAnswers
from tradeleague.market import Dataset
from tradeleague.store import Store, open_store

__all__ = [
    "check_first_round",
    "load_board",
    "load_ledger",
    "recorded_answers",
    "replay_direction",
    "run_direction_replay",
]


def recorded_answers(store: Store, stream: str = FORMAT) -> RecordedAnswers:
    """Return the model answers recorded in ``stream`` of ``store``, for a ``ReplayGateway``.

    Each ``ModelCalled`` event holds one call record, read by
    `tradeleague.agents.recorded.calls_in` in any of its shapes.

    Raises
    ------
    ConfigError
        If the stream holds no events, an event is not a call record, or two
        records share a call key and attempt.
    """
    events = list(store.events(stream))
    try:
        records = calls_in(events)
    except NotACallRecord as exc:
        raise ConfigError(f"event {exc.seq} of {stream}: not a call record: {exc.reason}") from None
    if not events:
        raise ConfigError(f"the answers' database holds no direction stream {stream!r}")
    try:
        return RecordedAnswers(records)
    except ValueError as exc:
        raise ConfigError(f"stream {stream!r}: {exc}") from None


def load_ledger(store: Store, stream: str = FORMAT) -> Ledger:
    """Return the ledger folded from ``stream``'s events."""
    return fold(stored.event for stored in store.events(stream))


def load_board(
    store: Store,
    stream: str = FORMAT,
    *,
    season: str | None = None,
    preset: DirectionPreset | None = None,
) -> Board:
    """Return the board of ``season`` (the latest by default), from the log alone (D-PUB-4).

    Raises
    ------
    ConfigError
        If the stream holds no such season.
    """
    ledger = load_ledger(store, stream)
    view = ledger.seasons.get(season) if season is not None else ledger.current
    if view is None:
        raise ConfigError(f"no season {season or ''} in stream {stream!r}".replace("  ", " "))
    p = preset or DirectionPreset()
    return build_board(view, scoring_version=p.scoring_version, sparkline=p.sparkline)


@collecting_less
async def replay_direction(
    store: Store,
    dataset: Dataset,
    roster: Sequence[Contestant],
    *,
    start: datetime,
    end: datetime,
    preset: DirectionPreset | None = None,
    payout_ppm: int | None = None,
    stream: str = FORMAT,
    broker: Callable[[CandleSource], Broker] | None = None,
    ask_lag: Callable[[datetime], timedelta] | None = None,
    on_round: Callable[[int, int, str], None] | None = None,
    mask: bool = False,
) -> Board:
    """Replay every round opening in ``[start, end)`` and return the final season's board.

    Parameters
    ----------
    store
        Where the events go, event ids derived from their place in the stream
        (`Store.deriving_ids`). If ``stream`` already holds part of this same
        replay (an interrupted run), the arena takes up its state from it and
        only the rounds not recorded yet are played (``resume``).
    dataset
        One-minute candles holding ``preset.symbol``.
    roster
        The models, each with its board labels and its agent.
    start, end
        The replayed span (rounds on the five-minute grid).
    preset, payout_ppm
        The rules; ``payout_ppm`` overrides the preset's payout.
    broker
        Builds the broker from the candle source (default: ``PaperBroker``).
    ask_lag
        A simulated delay of the ask after each open (see ``pacing``).
    on_round
        Called after each round with (rounds done, rounds in all, round id).
    mask
        Play masked seasons (see `DirectionArena`).

    Raises
    ------
    ConfigError
        If the stream holds another replay (span, roster, rules or mask) or the
        span has no round.
    """
    p = preset or DirectionPreset()
    if payout_ppm is not None:
        p = replace(p, payout_ppm=payout_ppm)
    opens = round_opens(start, end, p)
    if not opens:
        raise ConfigError(f"no {p.round_length} round opens between {start} and {end}")
    store.claim(stream)  # before any read or call: a held stream is refused first
    clock = ReplayClock(opens[0])
    done_before: set[str] = set()
    if store.count(stream):
        record = read_record(stored.event for stored in store.events(stream))
        _check_same_replay(record, stream, roster, opens, p)
        done_before = record.rounds
        if record.last_at is not None and record.last_at > clock.now():
            clock.set(record.last_at)  # the clock goes on from where the record stopped
    candles = FrozenCandles(dataset, clock)
    arena = DirectionArena(
        store=store.deriving_ids(),  # same replay, same events, same chain head (C-1)
        roster=roster,
        candles=candles,
        broker=broker(candles)
        if broker is not None
        else PaperBroker(candles, payout_ppm=p.payout_ppm),
        clock=clock,
        pacing=ReplayPacing(clock, ask_lag),
        preset=p,
        stream=stream,
        mask=mask,
    )
    for done, open_at in enumerate(opens, start=1):
        rid = round_times(open_at, p).round_id
        if rid not in done_before:
            await arena.run_round(open_at)
        if on_round is not None:
            on_round(done, len(opens), rid)
    return load_board(store, stream, preset=p)


def _check_same_replay(
    record: ArenaRecord,
    stream: str,
    roster: Sequence[Contestant],
    opens: Sequence[datetime],
    preset: DirectionPreset,
) -> None:
    """Refuse to resume a stream that holds another replay than this one."""
    first = next(iter(record.ledger.seasons.values()), None)
    ids = {round_times(o, preset).round_id for o in opens}
    same = (
        first is not None
        and first.started.get("started_at") == utc_iso(opens[0])
        and [e.to_payload() for e in first.roster] == [c.entrant.to_payload() for c in roster]
        and all(
            first.started.get(k) == v
            for k, v in {
                "start_balance": str(int(preset.start_balance)),
                "stake": str(int(preset.stake)),
                "payout_ppm": preset.payout_ppm,
                "floor": str(int(preset.season_floor)),
                "length_s": int(preset.season_length.total_seconds()),
                "prompt_version": preset.prompt_version,
                "scoring_version": preset.scoring_version,
            }.items()
        )
        and all(r in ids for s in record.ledger.seasons.values() for r in s.rounds)
    )
    if not same:
        raise ConfigError(
            f"stream {stream!r} holds a different replay (another span, roster or rules), "
            "so it cannot be resumed; replay into a fresh stream or database"
        )


def run_direction_replay(
    store: Store,
    dataset: Dataset,
    roster: Sequence[Contestant],
    *,
    start: datetime,
    end: datetime,
    payout_ppm: int | None = None,
    preset: DirectionPreset | None = None,
    stream: str = FORMAT,
    on_round: Callable[[int, int, str], None] | None = None,
) -> Board:
    """Run ``replay_direction`` to completion from synchronous code; return the board."""
    return asyncio.run(
        replay_direction(
            store,
            dataset,
            roster,
            start=start,
            end=end,
            preset=preset,
            payout_ppm=payout_ppm,
            stream=stream,
            on_round=on_round,
        )
    )


async def check_first_round(
    dataset: Dataset,
    roster: Sequence[Contestant],
    *,
    start: datetime,
    end: datetime,
    preset: DirectionPreset | None = None,
    mask: bool = False,
) -> list[AgentCheck]:
    """Play the span's first round on a scratch store and return each model agent's check.

    The round is the real one (its prompt, schema and window), played with
    ``CheckPacing`` into a temporary database that is thrown away; no close is
    awaited.

    Raises
    ------
    ConfigError
        If the span has no round.
    """
    p = preset or DirectionPreset()
    opens = round_opens(start, end, p)
    if not opens:
        raise ConfigError(f"no {p.round_length} round opens between {start} and {end}")
    clock = ReplayClock(opens[0])
    candles = FrozenCandles(dataset, clock)
    pacing = CheckPacing(clock)
    with (
        tempfile.TemporaryDirectory() as folder,
        open_store(f"sqlite:///{Path(folder) / 'check.db'}") as scratch,
    ):
        arena = DirectionArena(
            store=scratch, roster=roster, candles=candles,
            broker=PaperBroker(candles, payout_ppm=p.payout_ppm), clock=clock, pacing=pacing,
            preset=p, stream=FORMAT, mask=mask,
        )  # fmt: skip
        await arena.run_round(opens[0])
        events = [stored.event for stored in scratch.events()]
    return judge_turns(pacing, events)
