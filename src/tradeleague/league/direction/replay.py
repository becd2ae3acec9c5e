"""Replaying the direction arena over frozen one-minute candles (the same code as live).

``replay_direction`` runs every five-minute round between two instants on a
``ReplayClock``, with a ``FrozenCandles`` source (no look-ahead) and, by
default, the built-in ``PaperBroker`` at the given payout; then it folds the
recorded events into the board. Model latency is the agent's reported
latency (recorded, or simulated by ``SimulatedLatency``), so timeouts and
late answers happen in replay as they would live (see ``pacing``).

Recorded answers (C-5): ``recorded_answers`` reads an arena stream's
``ModelCalled`` events back for a ``ReplayGateway``. Call keys name the season
(``S1``, ``S2``... in the order the stream opened them), the round id and the
model, so a replay of the same span into an empty stream asks exactly the
recorded calls.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from tradeleague.agents.base import Agent, AgentReply, Turn, resume_agent
from tradeleague.agents.recorded import call_record_of
from tradeleague.broker.base import Broker
from tradeleague.broker.paper import PaperBroker
from tradeleague.clock import ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind, utc_iso
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.feeds.candles.frozen import FrozenCandles
from tradeleague.formats.direction.board import Board, build_board
from tradeleague.formats.direction.ledger import Ledger, fold
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.restart import ArenaRecord, read_record
from tradeleague.formats.direction.timing import round_opens, round_times
from tradeleague.league.direction.arena import Contestant, DirectionArena
from tradeleague.league.direction.pacing import ReplayPacing
from tradeleague.llm.records import CallRecord, RecordFormatError
from tradeleague.llm.replay import RecordedAnswers
from tradeleague.market import Dataset
from tradeleague.store import Store

__all__ = [
    "SimulatedLatency",
    "load_board",
    "load_ledger",
    "recorded_answers",
    "replay_direction",
    "run_direction_replay",
    "seeded_latency",
]


def seeded_latency(
    seed: int, *, low_ms: int = 1_500, high_ms: int = 30_000
) -> Callable[[Turn], int]:
    """Return a latency model: a uniform draw in ``[low_ms, high_ms]`` per call key.

    The draw depends only on the seed and the call's key (season, round,
    agent), never on call order, so a replay is reproducible.
    """

    def latency(turn: Turn) -> int:
        digest = hashlib.blake2b(f"{seed}/{turn.key.text}".encode(), digest_size=8).digest()
        return random.Random(int.from_bytes(digest, "big")).randint(low_ms, high_ms)  # noqa: S311

    return latency


@dataclass(slots=True)
class SimulatedLatency:
    """An agent whose answers take a simulated time instead of the measured one.

    The wrapped agent answers for real (through the gateway, say); its reply's
    ``latency_ms`` is replaced by ``latency(turn)``, the time a replay assumes
    the answer took. Everything else (text, outcome, call records) is kept.
    """

    agent: Agent
    latency: Callable[[Turn], int]
    name: str = field(init=False)
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.agent.name
        self.kind = self.agent.kind

    def resume(self, turns: int) -> None:
        """Resume the wrapped agent after ``turns`` past turns."""
        resume_agent(self.agent, turns)

    async def answer(self, turn: Turn) -> AgentReply:
        """Answer through the wrapped agent, with the simulated latency."""
        reply = await self.agent.answer(turn)
        return replace(reply, latency_ms=self.latency(turn))


def recorded_answers(store: Store, stream: str = FORMAT) -> RecordedAnswers:
    """Return the model answers recorded in ``stream`` of ``store``, for a ``ReplayGateway``.

    Each ``ModelCalled`` event holds the round, the model and the call record
    (``CallRecord.to_payload()``) under ``record``.

    Raises
    ------
    ConfigError
        If the stream holds no events, an event is not a call record, or two
        records share a call key and attempt.
    """
    records: list[CallRecord] = []
    seen = False
    for stored in store.events(stream):
        seen = True
        if stored.event.kind != EventKind.MODEL_CALLED:
            continue
        try:
            records.append(call_record_of(stored.event.payload))
        except RecordFormatError as exc:
            raise ConfigError(f"event {stored.seq} of {stream}: not a call record: {exc}") from None
    if not seen:
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
) -> Board:
    """Replay every round opening in ``[start, end)`` and return the final season's board.

    Parameters
    ----------
    store
        Where the events go. If ``stream`` already holds part of this same
        replay (an interrupted run), the arena takes up its state from it
        and only the rounds not recorded yet are played (``resume``).
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

    Raises
    ------
    ConfigError
        If the stream holds another replay (span, roster or rules) or the span
        has no round.
    """
    p = preset or DirectionPreset()
    if payout_ppm is not None:
        p = replace(p, payout_ppm=payout_ppm)
    opens = round_opens(start, end, p)
    if not opens:
        raise ConfigError(f"no {p.round_length} round opens between {start} and {end}")
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
        store=store,
        roster=roster,
        candles=candles,
        broker=broker(candles)
        if broker is not None
        else PaperBroker(candles, payout_ppm=p.payout_ppm),
        clock=clock,
        pacing=ReplayPacing(clock, ask_lag),
        preset=p,
        stream=stream,
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
