"""The weights league's host driver: its seasons, played round hour by round hour (W-RND-1).

The driver wraps ``play_round`` with the same objects ``replay weights``
builds, so a replay-clock host writes the events the replay writes. Played
slots are read from the season's own stream (a round is recorded in one
transaction, which is the slot's claim); under replay the driver has its own
clock, from the season's first instant, and live it shares the wall clock.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from tradeleague.calls import CallParams
from tradeleague.clock import Clock, ReplayClock
from tradeleague.errors import ConfigError, DataError
from tradeleague.events import Event
from tradeleague.events import weights as wev
from tradeleague.events.host import NO_UNIVERSE
from tradeleague.feeds import FrozenBarsSource, PriceSource
from tradeleague.feeds.registry import load_registry
from tradeleague.formats.weights import WeightsPreset, round_hours_on
from tradeleague.host.plugin import SlotUnplayable
from tradeleague.host.seasons import Seasons
from tradeleague.league.pacing import LivePacing, Pacing, ReplayPacing
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.config import WeightsConfig
from tradeleague.league.weights.replay import RosterEntry, opening_events, resume_agents
from tradeleague.league.weights.round import RoundConfig, play_round
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import read_universe, recorded_registry
from tradeleague.llm.token_prices import PriceTable
from tradeleague.market import load_dataset
from tradeleague.market.calendars import NYSE, get_calendar
from tradeleague.market.loader import symbol_files
from tradeleague.store import Store

__all__ = ["WeightsDriver", "WeightsLeague", "weights_slots"]


def weights_slots(
    start: datetime,
    end: datetime,
    is_trading_day: Callable[[date], bool],
    preset: WeightsPreset,
) -> list[datetime]:
    """Return the weights round hours in ``[start, end)`` on trading days, in order."""
    out: list[datetime] = []
    day = start.astimezone(UTC).date()
    while datetime.combine(day, datetime.min.time(), tzinfo=UTC) < end:
        if is_trading_day(day):
            out.extend(h for h in round_hours_on(day, preset) if start <= h < end)
        day += timedelta(days=1)
    return out


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

    def __init__(
        self,
        store: Store,
        config: WeightsConfig,
        *,
        clock: Clock | None,
        prices: PriceTable | None = None,
    ) -> None:
        if config.end is None:
            raise ConfigError("a weights season needs its end")
        if config.market is None:
            raise ConfigError("[weights] needs market (frozen bars), for history and replay")
        self.config = config
        self.season = config.season
        self.preset = WeightsPreset()
        self.replay = clock is None
        self.store = store.deriving_ids() if self.replay else store
        if self.replay:  # a held season is refused before any read or model call
            self.store.claim(wev.season_stream(config.season))
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
        _parsed, self.agents, self.gateway = build_agents(
            specs, season=config.season, prices=prices
        )
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


class WeightsLeague(Seasons[WeightsDriver]):
    """The weights league's seasons: one, or 28-day seasons one after another (W-SEA-1).

    Each season is a `WeightsDriver`, opened when its first slot comes (its
    own agents, state and stream); a slot belongs to the season whose days
    hold it (`season_window`).
    """

    fmt = "weights"

    def __init__(
        self,
        store: Store,
        config: WeightsConfig,
        *,
        clock: Clock | None,
        prices: PriceTable | None = None,
    ) -> None:
        super().__init__(config.season, config.start, config.end, config.roll)
        self.store = store
        self.config = config
        self.clock = clock
        self.prices = prices

    def _make(self, season: str, day0: date, day1: date) -> WeightsDriver:
        config = replace(self.config, season=season, start=day0, end=day1, roll=False)
        return WeightsDriver(self.store, config, clock=self.clock, prices=self.prices)

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
