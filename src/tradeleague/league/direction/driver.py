"""The direction arena's host driver: a round every five minutes; seasons roll over by themselves.

The driver wraps ``DirectionArena.run_round`` with the same objects
``replay direction`` builds, so a replay-clock host writes the events the
replay writes. Played rounds are read from the arena's stream; under replay the
driver has its own clock from its first round open (as the replay command's
starts at its own), and live it shares the wall clock.
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

from tradeleague.agents.spec import parse_agent_spec, providers_for
from tradeleague.broker.paper import PaperBroker
from tradeleague.clock import Clock, ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.feeds.candles.frozen import FrozenCandles
from tradeleague.feeds.candles.live import CcxtCandles
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.restart import read_record, started_at
from tradeleague.formats.direction.timing import round_opens, round_times
from tradeleague.league.direction.arena import DirectionArena
from tradeleague.league.direction.config import DRILL, DirectionConfig, direction_preset
from tradeleague.league.direction.roster import contestant_of
from tradeleague.league.pacing import LivePacing, Pacing, ReplayPacing
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.token_prices import PriceTable
from tradeleague.market import load_dataset
from tradeleague.store import Store

__all__ = ["DirectionDriver", "direction_slots"]


def direction_slots(start: datetime, end: datetime, preset: DirectionPreset) -> list[datetime]:
    """Return the direction round opens in ``[start, end)`` (D-RND-1)."""
    return round_opens(start, end, preset)


class DirectionDriver:
    """The direction arena: a round every five minutes; seasons roll over by themselves."""

    fmt = "direction"

    def __init__(
        self,
        store: Store,
        config: DirectionConfig,
        *,
        clock: Clock | None,
        first: datetime | None,
        prices: PriceTable | None = None,
    ) -> None:
        self.config = config
        self.season = config.stream
        self.stream = config.stream
        self.preset = direction_preset(config)
        self.replay = clock is None
        self.store = store.deriving_ids() if self.replay else store
        if self.replay:  # a held stream is refused before any read or model call
            self.store.claim(config.stream)
        record = read_record(s.event for s in store.events(config.stream))
        self.done = set(record.rounds)
        self.last_season = record.season.season if record.season is not None else None
        self.since: datetime | None = config.start
        if self.since is None and record.ledger.seasons:  # else from its first recorded round
            season = next(iter(record.ledger.seasons.values()))
            self.since = started_at(season.started, "started_at")
        if clock is None:
            if first is None:
                raise ConfigError("a replay-clock arena needs its first round")
            replay_clock = ReplayClock(first)
            if record.last_at is not None and record.last_at > replay_clock.now():
                replay_clock.set(record.last_at)  # as `replay direction` resumes
            self.clock: Clock = replay_clock
            pacing: Pacing = ReplayPacing(replay_clock)
        else:
            self.clock = clock
            pacing = LivePacing(clock, poll=timedelta(milliseconds=100))
        self.candles = self._candles()
        specs = [parse_agent_spec(f"{a.name}={a.spec}") for a in config.agents]
        self.gateway = Gateway(providers_for(specs), prices=prices)
        roster = [contestant_of(spec, self.gateway, config.stream) for spec in specs]
        self.arena = DirectionArena(
            store=self.store,
            roster=roster,
            candles=self.candles,
            broker=PaperBroker(self.candles, payout_ppm=self.preset.payout_ppm),
            clock=self.clock,
            pacing=pacing,
            preset=self.preset,
            stream=config.stream,
        )

    @staticmethod
    def first_open(start: datetime, end: datetime, config: DirectionConfig) -> datetime | None:
        """Return the first round open of ``[start, end)`` (a replay-clock arena starts there)."""
        preset = DRILL if config.drill else DirectionPreset()
        opens = direction_slots(start, end, preset)
        return opens[0] if opens else None

    def _candles(self) -> CandleSource:
        if self.replay:
            if self.config.market is None:
                raise ConfigError("[direction] needs market (one-minute candles) for replay")
            dataset = load_dataset(self.config.market, symbols=[self.preset.symbol])
            return FrozenCandles(dataset, self.clock)
        return CcxtCandles.create(
            self.config.exchange,
            self.clock,
            {self.preset.symbol: self.config.symbol},
            api_base=self.config.api_base,
            # spot candles only: loading every market type reaches endpoints a pair never needs
            options={"defaultType": "spot", "fetchMarkets": {"types": ["spot"]}},
        )

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the round opens in ``[start, end)``."""
        return direction_slots(start, end, self.preset)

    def season_of(self, slot: datetime) -> str:
        """Return the arena's stream (its seasons roll over inside it)."""
        return self.stream

    def round_id(self, slot: datetime) -> str:
        """Return the id of the round that opens at ``slot``."""
        return round_times(slot, self.preset).round_id

    def played(self, slot: datetime) -> bool:
        """Return whether the round of ``slot`` is recorded."""
        return self.round_id(slot) in self.done

    async def play(self, slot: datetime) -> list[Event]:
        """Play the round that opens at ``slot`` (the arena records as it goes)."""
        self.done.add(self.round_id(slot))
        await self.arena.run_round(slot)
        return []

    async def aclose(self) -> None:
        """Close the gateway and the exchange session."""
        await self.gateway.aclose()
        closer = getattr(self.candles, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
