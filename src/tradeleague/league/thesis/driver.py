"""The thesis league's host driver: a cycle every day at 16:00 UTC, then the season's close.

The driver wraps ``ThesisSeason.play`` with the same objects ``replay thesis``
builds, so a replay-clock host writes the events the replay writes. Played
cycles are read from the season's own stream; seasons roll over with
``roll = true`` (``ThesisLeague``, T-SEA-1).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from datetime import UTC, date, datetime, time
from typing import Any

from tradeleague.agents.spec import parse_agent_spec, providers_for
from tradeleague.clock import Clock, ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.calendar import close_instant, cycle_times
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.host.seasons import Seasons
from tradeleague.league.pacing import LivePacing, Pacing, ReplayPacing
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.config import ThesisConfig
from tradeleague.league.thesis.cycle import CycleConfig
from tradeleague.league.thesis.data import load_tape, replay_sources
from tradeleague.league.thesis.live import LiveTape
from tradeleague.league.thesis.season import ThesisSeason
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store

__all__ = ["ThesisDriver", "ThesisLeague", "thesis_slots"]


def thesis_slots(
    start: datetime, end: datetime, first: date, last: date, preset: ThesisPreset
) -> list[datetime]:
    """Return the thesis season's slots in ``[start, end)``: its daily cycles, then its close.

    The season covers the days ``[first, last)``; its close is the monitor's
    last check before ``last`` (T-SEA-1, T-MON-1).
    """
    instants = [*cycle_times(first, last, preset), close_instant(last, preset)]
    moments = [datetime.fromtimestamp(s, UTC) for s in instants]
    return [m for m in moments if start <= m < end]


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
        prices: PriceTable | None = None,
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
        self.gateway = Gateway(providers_for(specs), prices=prices)
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
            store.claim(self.stream)  # a held season is refused before any model call
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

    def __init__(
        self,
        store: Store,
        config: ThesisConfig,
        *,
        clock: Clock | None,
        prices: PriceTable | None = None,
    ) -> None:
        super().__init__(config.season, config.start, config.end, config.roll)
        self.store = store
        self.config = config
        self.clock = clock
        self.prices = prices
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
        driver = ThesisDriver(
            self.store, config, clock=self.clock, tape=self.tape, prices=self.prices
        )
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
