"""The weights league as the host sees it: ``HOST``, its ``host.plugin.HostPart``.

- ``[weights]`` is parsed by ``WeightsConfig.parse`` (``config.py``);
- the driver is a ``WeightsLeague`` (``driver.py``): one season, or 28-day
  seasons one after another (W-SEA-1);
- ``tradeleague status`` lists every weights season in the store and the league
  file's current one: last and next round hour, missed slots, paused agents,
  its feed and its universe;
- ``tradeleague report --season`` writes the REPORT.json ``replay weights
  --out`` writes;
- a host run prints each division's table when it ends, as ``replay
  weights`` does; a round's feed faults are its symbols whose feed could not
  be read, was stale or whose paused flag could not be read, and a node that
  could not be reached or was stale;
- ``tradeleague universe`` (``upcoming_universe``) reads what the next season
  would hold if it started now, and writes nothing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.events import weights as wev
from tradeleague.formats.weights import Division, WeightsPreset, round_hours_on
from tradeleague.formats.weights.market_status import ClosedReason, HaltReason
from tradeleague.host.clocks import status_clock
from tradeleague.host.leaguefile import Check
from tradeleague.host.missed import missed_in
from tradeleague.host.plugin import Driver
from tradeleague.host.seasons import current_season
from tradeleague.league.answers import answers_payload
from tradeleague.league.costs import season_costs_payload
from tradeleague.league.weights.config import WeightsConfig, next_season
from tradeleague.league.weights.report import build_report, paper_values, season_luck
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import (
    read_universe,
    universe_lines,
    universe_summary,
    universe_view,
    view_of,
)
from tradeleague.llm.token_prices import PriceTable
from tradeleague.market.calendars import NYSE, get_calendar
from tradeleague.store import Store

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tradeleague.league.check import AgentCheck

__all__ = ["HOST", "WeightsConfig", "WeightsHost", "universe_lines", "upcoming_universe"]

_PREFIX = "weights/"

_FEED_HALTS: Final = frozenset({HaltReason.STALE.value, HaltReason.PAUSED_UNREADABLE.value})
"""Halts that say a feed is stale or unreadable (not a hold or a corporate action)."""
_NODE_CLOSES: Final = frozenset(
    {ClosedReason.NODE_STALE.value, ClosedReason.NODE_UNREACHABLE.value}
)
"""Closes that say the node the feeds are read through is stale or unreachable."""


def _state(store: Store, season: str) -> SeasonState:
    stream = wev.season_stream(season)
    return SeasonState.from_events(stream, (s.event for s in store.events(stream)))


def _next_slot(after: datetime, end: datetime | None) -> str | None:
    calendar = get_calendar(NYSE)
    day = after.date()
    for _ in range(15):
        if calendar.is_trading_day(day):
            for hour in round_hours_on(day, WeightsPreset()):
                if hour > after and (end is None or hour < end):
                    return utc_iso(hour)
        day += timedelta(days=1)
    return None


def _status(
    store: Store, season: str, config: WeightsConfig | None, now: datetime
) -> dict[str, Any]:
    state = _state(store, season)
    played = sorted(state.finished | set(state.closed_hours))
    last = played[-1] if played else None
    after, clock = status_clock(store, wev.season_stream(season), now, last)
    end = state.window.end if state.window is not None else None
    feeds: dict[str, Any] = {"kind": "frozen", "source": state.source} if state.source else {}
    if config is not None and config.feeds is not None:
        feeds = {"kind": "chainlink", "registry": str(config.feeds)}
    return {
        "format": "weights",
        "season": season,
        "clock": clock,
        "last_slot": None if last is None else utc_iso(last),
        "next_slot": _next_slot(after, end),
        "missed": missed_in(store, "weights", season),
        "paused": [
            {"agent": name, "reason": agent.pause_reason or "paused"}
            for name, agent in sorted(state.agents.items())
            if agent.paused
        ],
        "feeds": feeds,
        "universe": universe_view(state) if state.started else None,
    }


class WeightsHost:
    """The weights league's ``host`` part (``host.plugin.HostPart[WeightsConfig]``)."""

    def parse(self, data: object, check: Check) -> WeightsConfig | None:
        """Return ``[weights]`` checked (see ``WeightsConfig.parse``)."""
        return WeightsConfig.parse(data, check)

    def driver(
        self,
        store: Store,
        config: WeightsConfig,
        *,
        clock: Clock | None,
        span: tuple[datetime, datetime] | None,
        prices: PriceTable | None = None,
    ) -> Driver:
        """Return the league's seasons, each opened at its first slot."""
        from tradeleague.league.weights.driver import WeightsLeague  # the engine, when played

        return WeightsLeague(store, config, clock=clock, prices=prices)

    def status(
        self, store: Store, config: WeightsConfig | None, streams: Sequence[str], now: datetime
    ) -> list[dict[str, Any]]:
        """Return an entry per season in the store, and the league file's current season."""
        seasons = [s.removeprefix(_PREFIX) for s in streams if s.startswith(_PREFIX)]
        if config is not None:
            current = current_season(config.season, config.start, config.end, config.roll, now)
            if current is not None and current[0] not in seasons:
                seasons.append(current[0])
        return [_status(store, s, config, now) for s in sorted(seasons)]

    def status_lines(self, entry: Mapping[str, Any]) -> list[str]:
        """Return the season's universe in one line, when it has symbols."""
        universe = entry.get("universe")
        if universe is not None and universe["symbols"]:
            return [universe_summary(universe)]
        return []

    def report(
        self,
        store: Store,
        season: str,
        config: WeightsConfig | None,
        *,
        stream: str | None,
        prices: PriceTable | None = None,
    ) -> dict[str, Any] | None:
        """Return the season's REPORT.json, as ``replay weights --out`` writes it."""
        state = _state(store, season)
        if not state.started:
            return None
        luck = {d: season_luck(state, d) for d in Division}
        payload = build_report(state, luck)
        payload["answers"] = answers_payload(store, season)  # as `replay weights --out` writes
        payload["costs"] = season_costs_payload(store, season, paper_values(state), prices)
        return payload

    def boards(
        self, store: Store, season: str, config: WeightsConfig | None
    ) -> list[RenderableType]:
        """Return each division's table with agents in it, as ``replay weights`` prints them."""
        from tradeleague.league.weights.board_table import render_table

        state = _state(store, season)
        if not state.started:
            return []
        divisions = {a.division for a in state.agents.values()}
        return [render_table(state, d) for d in Division if d in divisions]

    async def check(self, config: WeightsConfig) -> list[AgentCheck] | None:
        """Ask each model agent the season's first round once, over ``market`` (in memory)."""
        from tradeleague.league.weights.checking import check_config  # the engine, when asked

        return await check_config(config)

    def feed_faults(self, events: Sequence[Event]) -> list[str] | None:
        """Return the round's stale or unreadable feeds; ``None`` when the market was closed.

        A market closed because its node was stale or unreachable, or a price
        invalid, names those; closed for another reason (no feed published
        lately: a weekend), it says nothing of the feeds.
        """
        faults: list[str] = []
        closed: list[str] | None = None
        for event in events:
            p = event.payload
            if event.kind == EventKind.PRICE_READ and p.get("error"):
                faults.append(f"{p['symbol']}: unreadable")
            elif event.kind == EventKind.ROUND_STARTED:
                halted = p.get("halted")
                for symbol, reasons in sorted(halted.items() if isinstance(halted, dict) else ()):
                    faults += [f"{symbol}: {r}" for r in reasons if r in _FEED_HALTS]
            elif event.kind == wev.MARKET_CLOSED:
                reasons, invalid = p.get("reasons"), p.get("invalid")
                closed = [
                    f"node: {r}"
                    for r in (reasons if isinstance(reasons, list) else ())
                    if r in _NODE_CLOSES
                ]
                closed += [
                    f"{s}: invalid_price"
                    for s in sorted(invalid if isinstance(invalid, dict) else ())
                ]
        if closed is not None:
            return faults + closed if faults or closed else None
        return faults


HOST = WeightsHost()
"""The weights league's ``host`` part, named in its ``Format``."""


def upcoming_universe(config: WeightsConfig, now: datetime) -> dict[str, Any]:
    """Return what the next season would hold if it started at ``now`` (``universe_view``'s shape).

    With ``feeds``, every feed of the registry and each token's supply are read
    from the node at ``$rpc_url_env`` (the read a season makes at its start);
    without, the fixed list (or the bars' files). Nothing is written.

    Raises
    ------
    ConfigError
        If the file reads feeds and ``$rpc_url_env`` is not set.
    """
    upcoming = next_season(config, now)
    name = upcoming[0] if upcoming is not None else ""  # "": no season is left to open
    if config.feeds is None:
        from tradeleague.market.loader import symbol_files

        symbols = list(config.symbols)
        if not symbols and config.market is not None:
            symbols = sorted(symbol_files(config.market))
        view = view_of(name, symbols, None)
    else:
        from tradeleague.feeds.registry import load_registry  # eth_utils: slow to import

        rpc_url = os.environ.get(config.rpc_url_env)
        if not rpc_url:
            raise ConfigError(
                f"set ${config.rpc_url_env} to the node's JSON-RPC URL: the universe is "
                "read from the chain"
            )
        registry = load_registry(config.feeds)
        payload = asyncio.run(
            read_universe(
                registry, rpc_url, season=name, at=now, preset=WeightsPreset(),
                timeout_s=min(config.timeout_s, 30.0),
            )
        )  # fmt: skip
        view = view_of(name, payload["symbols"], payload)
    if upcoming is not None:
        view["starts"] = upcoming[1].isoformat()
    return view
