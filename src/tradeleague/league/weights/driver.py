"""One driver per format: its schedule, what it played, and how it plays one slot.

A driver wraps the format's own round code (``play_round`` for the weights
league, ``DirectionArena.run_round`` for the arena, ``ThesisSeason.play`` for
the thesis league) with the same objects its replay command builds, so a
replay-clock host writes the events the replay writes. Played slots are read
from the format's own stream (a round is recorded in one transaction, which is
the slot's claim); each driver has its own clock under replay (each replay
command's clock starts at its own first slot) and shares the wall clock live.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Protocol

from tradeleague.agents.spec import parse_agent_spec, providers_for
from tradeleague.broker.paper import PaperBroker
from tradeleague.calls import CallParams
from tradeleague.clock import Clock, ReplayClock
from tradeleague.errors import ConfigError, DataError
from tradeleague.events import Event
from tradeleague.events import thesis as tev
from tradeleague.events.host import NO_UNIVERSE, SLOT_MISSED, host_stream
from tradeleague.feeds import FrozenBarsSource, PriceSource
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.feeds.candles.frozen import FrozenCandles
from tradeleague.feeds.candles.live import CcxtCandles
from tradeleague.feeds.registry import load_registry
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.restart import read_record
from tradeleague.formats.direction.timing import round_times
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.formats.weights import WeightsPreset
from tradeleague.host.config import DirectionConfig, ThesisConfig, WeightsConfig
from tradeleague.host.schedule import direction_slots, thesis_slots, weights_slots
from tradeleague.host.seasons import SEASON_DAYS, Seasons
from tradeleague.league.direction.arena import DirectionArena
from tradeleague.league.direction.roster import contestant_of
from tradeleague.league.pacing import LivePacing, Pacing, ReplayPacing
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.cycle import CycleConfig
from tradeleague.league.thesis.data import load_tape, replay_sources
from tradeleague.league.thesis.live import LiveTape
from tradeleague.league.thesis.season import ThesisSeason
from tradeleague.league.weights import events as wev
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, opening_events, resume_agents
from tradeleague.league.weights.round import RoundConfig, play_round
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import read_universe, recorded_registry
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.market import load_dataset
from tradeleague.market.calendars import NYSE, get_calendar
from tradeleague.market.loader import symbol_files
from tradeleague.store import Store

__all__ = [
    "DRILL",
    "SEASON_DAYS",
    "DirectionDriver",
    "Driver",
    "SlotUnplayable",
    "ThesisDriver",
    "ThesisLeague",
    "WeightsDriver",
    "WeightsLeague",
    "direction_preset",
    "missed_slots",
    "next_season",
]

DRILL = DirectionPreset(
    round_length=timedelta(seconds=2),
    window=timedelta(seconds=1),
    late_cutoff=timedelta(milliseconds=200),
    settle_grace=timedelta(seconds=3),
    candles=5,
)
"""The arena's drill rounds (2 s), for trying the live path in seconds."""


def direction_preset(config: DirectionConfig) -> DirectionPreset:
    """Return the rules the league file's arena plays by (drill rounds or the seed's, its payout).

    The host plays by them and the site judges visitors' calls by them (the
    round grid and the late cutoff), so both read them from here.
    """
    base = DRILL if config.drill else DirectionPreset()
    return replace(base, payout_ppm=config.payout * 10_000)


class Driver(Protocol):
    """What the host needs of a format."""

    fmt: str
    season: str
    stream: str

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the format's slots in ``[start, end)``."""
        ...

    def season_of(self, slot: datetime) -> str:
        """Return the season (or stream) ``slot`` belongs to."""
        ...

    def played(self, slot: datetime) -> bool:
        """Return whether ``slot`` is recorded (played, or closed by the format)."""
        ...

    async def play(self, slot: datetime) -> list[Event]:
        """Play ``slot`` and return the events its round wrote."""
        ...

    async def aclose(self) -> None:
        """Release the driver's connections."""
        ...


def missed_slots(store: Store, fmt: str) -> dict[str, tuple[str, str]]:
    """Return ``fmt``'s recorded missed slots: slot time (ISO) -> (season, reason)."""
    return {
        str(s.event.payload["slot"]): (
            str(s.event.payload["season"]),
            str(s.event.payload["reason"]),
        )
        for s in store.events(host_stream(fmt))
        if s.event.kind == SLOT_MISSED
    }


class SlotUnplayable(Exception):
    """A slot that cannot be played because its season could not open.

    The host records it missed with ``reason`` (``host/<format>``); it is never played late.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class WeightsDriver:
    """The weights league's season, played round hour by round hour.

    A season over a fixed list (``symbols``, or the bars' files) opens when the
    driver is made. A season whose symbols come from the chain (``feeds``)
    opens at its first round: the registry file and the RPC URL are read then,
    once, and the universe is recorded in its opening (W-UNI-1); its rounds read
    the feeds as recorded, so a registry change waits for the next season.
    Under the replay clock the read is recorded at the season's first instant
    (its price checks judge the feeds as of the node's latest block) and the
    rounds' prices still come from the bars.
    """

    fmt = "weights"

    def __init__(self, store: Store, config: WeightsConfig, *, clock: Clock | None) -> None:
        if config.end is None:
            raise ConfigError("a weights season needs its end")
        if config.market is None:
            raise ConfigError("[weights] needs market (frozen bars), for history and replay")
        self.config = config
        self.season = config.season
        self.preset = WeightsPreset()
        self.replay = clock is None
        self.store = store.deriving_ids() if self.replay else store
        self.window = (
            datetime.combine(config.start, time(0), tzinfo=UTC),
            datetime.combine(config.end, time(0), tzinfo=UTC),
        )
        self.clock: Clock
        self.pacing: Pacing
        if clock is None:
            replay_clock = ReplayClock(self.window[0])
            self.clock, self.pacing = replay_clock, ReplayPacing(replay_clock)
        else:
            self.clock, self.pacing = clock, LivePacing(clock)
        self.rpc_url: str | None = None
        if config.feeds is not None:
            self.rpc_url = os.environ.get(config.rpc_url_env)
            if not self.rpc_url:
                raise ConfigError(
                    f"a weights league with feeds needs ${config.rpc_url_env} (an RPC URL): "
                    "each season's symbols are read from the chain"
                )
        self.round_config = RoundConfig(
            params=CallParams(max_tokens=400, timeout_s=config.timeout_s)
        )
        specs = [f"{a.name}={a.spec}" for a in config.agents]
        # each seeded baseline draws from its season and name, as `replay weights` does
        _parsed, self.agents, self.gateway = build_agents(specs, season=config.season)
        self.roster = [
            RosterEntry(name=a.name, spec=f"{a.name}={a.spec}", division=a.division)
            for a in config.agents
        ]
        self.stream = wev.season_stream(config.season)
        self.state = SeasonState.from_events(
            self.stream, (s.event for s in self.store.events(self.stream)), self.preset
        )
        self.source: PriceSource | None = None
        if self.state.started:
            if sorted(self.state.agents) != sorted(a.name for a in config.agents):
                raise ConfigError(
                    f"weights season {config.season} was recorded with agents "
                    f"{sorted(self.state.agents)}; run it with the same roster"
                )
            self.source = self._source(self.state.symbols, self.state.universe)
            resume_agents(self.state, self.agents)
        elif config.feeds is None:
            self._open(self._source(list(config.symbols) or None, None), None)

    def _bars(self, symbols: Sequence[str] | None, *, need_all: bool) -> FrozenBarsSource:
        market = self.config.market
        if market is None:  # pragma: no cover - checked in __init__
            raise ConfigError("[weights] needs market (frozen bars), for history and replay")
        if symbols is not None and not need_all:
            files = symbol_files(market)
            symbols = [s for s in symbols if s in files]
        self.bars = FrozenBarsSource(load_dataset(market, symbols=symbols))
        return self.bars

    def _source(
        self, symbols: Sequence[str] | None, universe: Mapping[str, Any] | None
    ) -> PriceSource:
        """Return the rounds' prices.

        The bars (replay, or a fixed list without feeds), or live the feeds the
        season recorded, with the bars as history.
        """
        if self.replay:
            return self._bars(symbols, need_all=True)
        if universe is None and self.config.feeds is None:
            return self._bars(symbols, need_all=True)
        from tradeleague.feeds.chainlink import ChainlinkSource  # web3 only when a host reads it

        bars = self._bars(symbols, need_all=False)
        if universe is not None:
            registry = recorded_registry(universe)
        elif self.config.feeds is not None:
            registry = load_registry(self.config.feeds)
        return ChainlinkSource(registry, self.rpc_url or "", history=bars)

    def _open(self, source: PriceSource, universe: Mapping[str, Any] | None) -> None:
        """Record the season's opening (its universe, if read) and take up its state."""
        decimals = None
        if universe is not None and not self.replay:
            decimals = {
                str(r["symbol"]): int(r["decimals"]) for r in universe["rows"] if r["chosen"]
            }
        opening = opening_events(
            self.stream, self.config.season, source, self.roster, *self.window, self.preset,
            universe=universe, decimals=decimals, replay=self.replay,
        )  # fmt: skip
        self.store.append(opening)
        for e in opening:
            self.state.apply(e)
        self.source = source
        resume_agents(self.state, self.agents)

    async def _open_from_chain(self) -> None:
        """Read the universe from the chain and open the season with it (W-UNI-1)."""
        if self.config.feeds is None:  # pragma: no cover - a fixed list opens in __init__
            raise ConfigError(f"weights season {self.season} has no feeds to read")
        at = self.window[0] if self.replay else self.clock.now()
        try:
            registry = load_registry(self.config.feeds)
            universe = await read_universe(
                registry, self.rpc_url or "", season=self.season, at=at, preset=self.preset,
                timeout_s=min(self.config.timeout_s, 30.0),
            )  # fmt: skip
        except ConfigError as exc:  # the registry file broke, or the node cannot be read
            raise SlotUnplayable(NO_UNIVERSE, str(exc)) from exc
        try:
            source = self._source(universe["symbols"], universe)
        except DataError as exc:
            raise ConfigError(
                f"season {self.season}'s universe holds symbols the bars in "
                f"{self.config.market} lack: {exc}"
            ) from exc
        self._open(source, universe)

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the round hours in ``[start, end)`` within the season (W-RND-1)."""
        start, end = max(start, self.window[0]), min(end, self.window[1])
        return weights_slots(start, end, get_calendar(NYSE).is_trading_day, self.preset)

    def season_of(self, slot: datetime) -> str:
        """Return this season's id."""
        return self.season

    def played(self, slot: datetime) -> bool:
        """Return whether the round of ``slot`` is recorded."""
        return self.state.recorded(slot)

    async def play(self, slot: datetime) -> list[Event]:
        """Play the round of ``slot``; its events are appended in one transaction.

        Raises
        ------
        SlotUnplayable
            If the season opens at this round and its universe cannot be read.
        """
        if not self.state.started:
            await self._open_from_chain()
        if isinstance(self.clock, ReplayClock):
            self.clock.set(max(slot, self.clock.now()))
        if self.source is None:  # pragma: no cover - an opened season has its source
            raise ConfigError(f"weights season {self.season} has no price source")
        events = await play_round(
            self.state, self.source, self.agents, slot, self.pacing, self.round_config
        )
        self.store.append(events)
        for e in events:
            self.state.apply(e)
        return events

    async def aclose(self) -> None:
        """Close the model gateway, if one was made."""
        if self.gateway is not None:
            await self.gateway.aclose()


def next_season(config: WeightsConfig, now: datetime) -> tuple[str, date] | None:
    """Return the id and first day of the first weights season starting after ``now``.

    ``None`` when no season of the league file starts after ``now``.
    """
    first = datetime.combine(config.start, time(0), tzinfo=UTC)
    if now < first:
        name = f"{config.season}-{config.start.isoformat()}" if config.roll else config.season
        return name, config.start
    if not config.roll:
        return None
    index = (now.date() - config.start).days // SEASON_DAYS + 1
    day0 = config.start + timedelta(days=index * SEASON_DAYS)
    if config.end is not None and day0 >= config.end:
        return None
    return f"{config.season}-{day0.isoformat()}", day0


class WeightsLeague(Seasons[WeightsDriver]):
    """The weights league's seasons: one, or 28-day seasons one after another (W-SEA-1).

    Each season is a `WeightsDriver`, opened when its first slot comes (its
    own agents, state and stream); a slot belongs to the season whose days
    hold it (`season_window`).
    """

    fmt = "weights"

    def __init__(self, store: Store, config: WeightsConfig, *, clock: Clock | None) -> None:
        super().__init__(config.season, config.start, config.end, config.roll)
        self.store = store
        self.config = config
        self.clock = clock

    def _make(self, season: str, day0: date, day1: date) -> WeightsDriver:
        config = replace(self.config, season=season, start=day0, end=day1, roll=False)
        return WeightsDriver(self.store, config, clock=self.clock)

    def _stream(self, season: str) -> str:
        return wev.season_stream(season)

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the round hours in ``[start, end)`` that fall in a season."""
        start = max(start, self.first)
        if self.config.end is not None:
            end = min(end, datetime.combine(self.config.end, time(0), tzinfo=UTC))
        if end <= start:
            return []
        return weights_slots(start, end, get_calendar(NYSE).is_trading_day, WeightsPreset())


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
    ) -> None:
        self.config = config
        self.season = config.stream
        self.stream = config.stream
        self.preset = direction_preset(config)
        self.replay = clock is None
        self.store = store.deriving_ids() if self.replay else store
        record = read_record(s.event for s in store.events(config.stream))
        self.done = set(record.rounds)
        self.last_season = record.season.season if record.season is not None else None
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
        self.gateway = Gateway(providers_for(specs))
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


class ThesisDriver:
    """The thesis league's season: a cycle every day at 16:00 UTC, then its close (T-SEA-1).

    The season is a ``ThesisSeason`` built as ``replay thesis`` builds it (the
    roster from ``build_roster``, the default cycle settings), so a replay-clock
    host writes the replay's events. Under the replay clock the tape is the
    frozen folders' (``load_tape``) and the driver has its own ``ReplayClock``
    from the season's first instant; live, each slot reads a ``LiveTape``
    (crypto 4h candles from Binance through ccxt, stocks' daily bars from
    Yahoo through yfinance) at the slot's instant. The monitor's checks between
    two cycles run at the later cycle, over the candles each check could see.
    """

    fmt = "thesis"

    def __init__(
        self,
        store: Store,
        config: ThesisConfig,
        *,
        clock: Clock | None,
        tape: MarketTape | None = None,
    ) -> None:
        if config.end is None:
            raise ConfigError("a thesis season needs its end")
        self.config = config
        self.season = config.season
        self.stream = tev.season_stream(config.season)
        self.preset = ThesisPreset()
        self.replay = clock is None
        universe = load_universe()
        texts = [f"{a.name}={a.spec}" for a in config.agents]
        specs = [parse_agent_spec(t) for t in texts if "=inverse:" not in t]
        self.gateway = Gateway(providers_for(specs))
        joins = [f"{n}={c}" for n, c in config.joins]
        entrants, agents = build_roster(texts, joins, self.gateway, season=config.season)
        self.first = datetime.combine(config.start, time(0), tzinfo=UTC)
        self.clock: Clock
        self.pacing: Pacing
        self.tape: MarketTape | None = None
        self.live: LiveTape | None = None
        self.feeds: list[Any] = []
        if clock is None:
            if config.crypto is None or config.stocks is None:
                raise ConfigError("[thesis] needs crypto and stocks (frozen folders) for replay")
            self.tape = tape or load_tape(
                universe, config.crypto, config.stocks, config.stocks_hourly
            )
            sources = replay_sources(config.crypto, config.stocks, config.stocks_hourly)
            replay_clock = ReplayClock(self.first)
            self.clock, self.pacing = replay_clock, ReplayPacing(replay_clock)
            store = store.deriving_ids()
        else:
            from tradeleague.feeds.thesis import BinanceCandles
            from tradeleague.feeds.yahoo import YahooCandles  # curl_cffi only when a host reads it

            crypto = BinanceCandles.create(clock, api_base=config.api_base)
            stocks = YahooCandles.create(clock, base_url=config.yahoo_base)
            self.feeds = [crypto, stocks]
            self.live = LiveTape(universe, crypto, stocks, self.preset)
            sources = {
                "crypto": config.api_base or "binance",
                "stocks": config.yahoo_base or "yahoo",
            }
            self.clock, self.pacing = clock, LivePacing(clock)
        self.end: date = config.end
        self.record = ThesisSeason(
            store, universe, entrants, agents, season_id=config.season, start=config.start,
            end=self.end, sources=sources, replay=self.replay, preset=self.preset,
            config=CycleConfig(),
        )  # fmt: skip

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the season's cycles and close in ``[start, end)``."""
        return thesis_slots(start, end, self.config.start, self.end, self.preset)

    def season_of(self, slot: datetime) -> str:
        """Return this season's id."""
        return self.season

    def played(self, slot: datetime) -> bool:
        """Return whether the cycle (or the close) of ``slot`` is recorded."""
        moment = int(slot.timestamp())
        if moment == self.record.close_at:
            return self.record.ended
        return self.record.recorded(moment)

    async def _tape(self, moment: int) -> MarketTape:
        if self.tape is not None:
            return self.tape
        assert self.live is not None  # noqa: S101 - live when there is no frozen tape
        return await self.live.at(moment)

    async def play(self, slot: datetime) -> list[Event]:
        """Play the cycle of ``slot`` (or close the season); its events go in one transaction."""
        if isinstance(self.clock, ReplayClock):
            self.clock.set(max(slot, self.clock.now()))
        moment = int(slot.timestamp())
        tape = await self._tape(moment)
        if moment == self.record.close_at:
            return self.record.close(tape)
        return await self.record.play(tape, moment, self.pacing)

    async def aclose(self) -> None:
        """Close the gateway and the live feeds' sessions."""
        await self.gateway.aclose()
        for feed in self.feeds:
            with contextlib.suppress(Exception):
                await feed.aclose()


class ThesisLeague(Seasons[ThesisDriver]):
    """The thesis league's seasons: one, or 28-day seasons one after another (T-SEA-1).

    Each season is a `ThesisDriver`, opened when its first slot comes, with the
    league file's roster; an agent's ``join`` holds in the first season only
    (later seasons open with every agent). Under the replay clock the seasons
    share one tape of the frozen folders. A season not yet in the store is not
    opened to answer whether a slot of it was played (a host that was down
    through a whole season records its slots missed and opens nothing).
    """

    fmt = "thesis"

    def __init__(self, store: Store, config: ThesisConfig, *, clock: Clock | None) -> None:
        super().__init__(config.season, config.start, config.end, config.roll)
        self.store = store
        self.config = config
        self.clock = clock
        # the roster and the folders are checked when the host starts, not at a season's opening
        texts = [f"{a.name}={a.spec}" for a in config.agents]
        joins = [f"{n}={c}" for n, c in config.joins]
        build_roster(texts, joins, ReplayGateway(RecordedAnswers([])))
        self.tape: MarketTape | None = None
        if clock is None:
            if config.crypto is None or config.stocks is None:
                raise ConfigError("[thesis] needs crypto and stocks (frozen folders) for replay")
            self.tape = load_tape(
                load_universe(), config.crypto, config.stocks, config.stocks_hourly
            )

    def _make(self, season: str, day0: date, day1: date) -> ThesisDriver:
        joins = self.config.joins if day0 == self.config.start else ()
        config = replace(self.config, season=season, start=day0, end=day1, roll=False, joins=joins)
        driver = ThesisDriver(self.store, config, clock=self.clock, tape=self.tape)
        self.tape = driver.tape
        return driver

    def _stream(self, season: str) -> str:
        return tev.season_stream(season)

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return every season's cycles and close in ``[start, end)``, in order."""
        preset = ThesisPreset()
        return [
            slot
            for _season, day0, day1 in self.windows(start, end)
            for slot in thesis_slots(start, end, day0, day1, preset)
        ]

    def played(self, slot: datetime) -> bool:
        """Return whether ``slot`` is recorded in its season (opening no season to answer)."""
        window = self.window(slot)
        if window is not None and window[0] not in self.seasons:
            stream = tev.season_stream(window[0])
            if next(iter(self.store.events(stream)), None) is None:
                return False
        return self.driver(slot).played(slot)
