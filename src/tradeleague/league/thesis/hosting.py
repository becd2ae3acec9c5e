"""The thesis league as the host sees it: ``HOST``, its ``host.plugin.HostPart``.

- ``[thesis]`` is parsed by ``ThesisConfig.parse`` (``config.py``);
- the driver is a ``ThesisLeague`` (``driver.py``): one season of daily
  cycles, or 28-day seasons one after another (T-SEA-1);
- ``tradeleague status`` lists every thesis season in the store and the league
  file's current one: last and next cycle (the close included), missed slots
  and where its prices come from;
- ``tradeleague report --season`` writes the REPORT.json ``replay thesis
  --out`` writes;
- a host run prints the season's board when it ends, as ``replay thesis``
  does; a cycle's feed fault is a cycle that read no price at all (a symbol
  without a price is judged in each answer, ``no_price``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from tradeleague.clock import Clock
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.calendar import close_instant, cycle_times
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.host.clocks import status_clock
from tradeleague.host.leaguefile import Check
from tradeleague.host.missed import missed_in
from tradeleague.host.plugin import Driver
from tradeleague.host.seasons import current_season
from tradeleague.league.answers import answers_payload
from tradeleague.league.costs import season_costs_payload
from tradeleague.league.thesis.config import ThesisConfig
from tradeleague.league.thesis.null import board_null
from tradeleague.league.thesis.report import build_report, paper_values
from tradeleague.league.thesis.state import SeasonState
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tradeleague.league.check import AgentCheck

__all__ = ["HOST", "ThesisHost"]

_PREFIX = "thesis/"


def _state(store: Store, season: str) -> SeasonState:
    stream = tev.season_stream(season)
    return SeasonState.from_events((s.event for s in store.events(stream)), ThesisPreset())


def _moment(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _status(
    store: Store, season: str, days: tuple[date, date] | None, now: datetime
) -> dict[str, Any]:
    """Return a thesis season's entry (``days``: its days, when the league file names them)."""
    state = _state(store, season)
    preset = ThesisPreset()
    played = sorted(state.cycles)
    last: datetime | None = _moment(played[-1]) if played else None
    upcoming: list[int] = []
    if state.started:
        days = _moment(state.start).date(), _moment(state.end).date()
    if days is not None:
        first, end = days
        upcoming = [*cycle_times(first, end, preset), close_instant(end, preset)]
        if state.ended:
            last, upcoming = datetime.fromtimestamp(upcoming[-1], UTC), []
    after, clock = status_clock(store, tev.season_stream(season), now, last)
    later = [t for t in upcoming if t > after.timestamp()]
    opening = next((s.event for s in store.events(tev.season_stream(season))), None)
    feeds: dict[str, Any] = {}
    if opening is not None and opening.kind == EventKind.SEASON_STARTED:
        kind = "frozen" if opening.payload.get("replay") else "live"
        feeds = {"kind": kind, "sources": opening.payload.get("sources")}
    return {
        "format": "thesis",
        "season": season,
        "clock": clock,
        "last_slot": None if last is None else utc_iso(last),
        "next_slot": utc_iso(datetime.fromtimestamp(later[0], UTC)) if later else None,
        "missed": missed_in(store, "thesis", season),
        "paused": [],
        "feeds": feeds,
    }


class ThesisHost:
    """The thesis league's ``host`` part (``host.plugin.HostPart[ThesisConfig]``)."""

    def parse(self, data: object, check: Check) -> ThesisConfig | None:
        """Return ``[thesis]`` checked (see ``ThesisConfig.parse``)."""
        return ThesisConfig.parse(data, check)

    def driver(
        self,
        store: Store,
        config: ThesisConfig,
        *,
        clock: Clock | None,
        span: tuple[datetime, datetime] | None,
        prices: PriceTable | None = None,
    ) -> Driver:
        """Return the league's seasons, each opened at its first slot."""
        from tradeleague.league.thesis.driver import ThesisLeague  # the engine, when played

        return ThesisLeague(store, config, clock=clock, prices=prices)

    def status(
        self, store: Store, config: ThesisConfig | None, streams: Sequence[str], now: datetime
    ) -> list[dict[str, Any]]:
        """Return an entry per season in the store, and the league file's current season."""
        seasons: dict[str, tuple[date, date] | None] = {
            s.removeprefix(_PREFIX): None for s in streams if s.startswith(_PREFIX)
        }
        if config is not None:
            current = current_season(config.season, config.start, config.end, config.roll, now)
            if current is not None:
                seasons[current[0]] = current[1:]
        return [_status(store, s, seasons[s], now) for s in sorted(seasons)]

    def status_lines(self, entry: Mapping[str, Any]) -> list[str]:
        """Return nothing: the summary line says it all."""
        return []

    def report(
        self,
        store: Store,
        season: str,
        config: ThesisConfig | None,
        *,
        stream: str | None,
        prices: PriceTable | None = None,
    ) -> dict[str, Any] | None:
        """Return the season's REPORT.json, as ``replay thesis --out`` writes it."""
        state = _state(store, season)
        if not state.started:
            return None
        body = build_report(state, board_null(state))  # the line from the record
        body["answers"] = answers_payload(store, season)  # as `replay thesis --out` writes it
        body["costs"] = season_costs_payload(store, season, paper_values(state), prices)
        return body

    def boards(
        self, store: Store, season: str, config: ThesisConfig | None
    ) -> list[RenderableType]:
        """Return the season's board, as ``replay thesis`` prints it."""
        from tradeleague.league.thesis.board_table import board_table

        state = _state(store, season)
        if not state.started:
            return []
        board = build_report(state, board_null(state))["board"]
        return [board_table(board if isinstance(board, list) else [])]

    async def check(self, config: ThesisConfig) -> list[AgentCheck] | None:
        """Ask each model agent the season's first cycle over its folders once (in memory)."""
        from tradeleague.league.check import calls_models
        from tradeleague.league.thesis.replay_run import ReplayRequest, check_calls, plan

        specs = [f"{a.name}={a.spec}" for a in config.agents]
        if not calls_models(s for s in specs if "=inverse:" not in s):
            return []
        if config.crypto is None or config.stocks is None:
            return None
        end = config.end or config.start + timedelta(days=28)
        request = ReplayRequest(
            crypto=config.crypto, stocks=config.stocks, start=str(config.start), end=str(end),
            agents=specs, stocks_hourly=config.stocks_hourly, season=config.season,
        )  # fmt: skip
        return await check_calls(plan(request))

    def feed_faults(self, events: Sequence[Event]) -> list[str] | None:
        """Return ``prices: none read`` for a cycle that read no price; ``None`` without a cycle."""
        for event in events:
            if event.kind == EventKind.ROUND_STARTED:
                return [] if event.payload.get("prices") else ["prices: none read"]
        return None


HOST = ThesisHost()
"""The thesis league's ``host`` part, named in its ``Format``."""
