"""The direction arena as the host sees it: ``HOST``, its ``host.plugin.HostPart``.

- ``[direction]`` is parsed by ``DirectionConfig.parse`` (``config.py``), and
  ``direction_preset`` gives the rules it plays by;
- the driver is a ``DirectionDriver`` (``driver.py``): a round every five
  minutes in the arena's stream, its seasons rolling over inside it;
- ``tradeleague status`` lists every arena stream in the store (not the
  visitors' streams beside it) and the league file's: last and next round
  open, missed slots and the feed;
- ``tradeleague report --season`` writes a season's REPORT.json from the
  arena's stream (``--stream``, else the league file's, else ``direction``);
- a host run prints the stream's latest board when it ends, as ``replay
  direction`` does; a round's feed fault is a round voided because its feed
  had no price at the open (``no_market_data``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from tradeleague.clock import Clock
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.events.direction import ROUND_VOIDED
from tradeleague.formats.direction.board import build_board, paper_values
from tradeleague.formats.direction.ledger import fold
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.publish import report_payload
from tradeleague.formats.direction.timing import round_opens
from tradeleague.host.clocks import status_clock
from tradeleague.host.leaguefile import Check
from tradeleague.host.missed import missed_in
from tradeleague.host.plugin import Driver
from tradeleague.league.answers import answers_payload, summarise
from tradeleague.league.costs import season_costs_payload
from tradeleague.league.direction.config import DRILL, DirectionConfig, direction_preset
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tradeleague.league.check import AgentCheck

__all__ = ["DRILL", "HOST", "DirectionHost", "direction_preset"]

_STREAM = "direction"
_NO_DATA = "no_market_data"


def _status(
    store: Store, stream: str, config: DirectionConfig | None, now: datetime
) -> dict[str, Any]:
    ledger = fold(s.event for s in store.events(stream))
    view = ledger.current
    preset = DRILL if config is not None and config.drill else DirectionPreset()
    opens = [
        datetime.fromisoformat(str(r.started["open_at"]).replace("Z", "+00:00"))
        for season in ledger.seasons.values()
        for r in season.rounds.values()
        if r.started.get("open_at")
    ]
    last = max(opens) if opens else None
    base, clock = status_clock(store, stream, now, last)
    upcoming = round_opens(base + timedelta(microseconds=1), base + 2 * preset.round_length, preset)
    feeds: dict[str, Any] = {"kind": "frozen"}
    if config is not None and config.market is None:
        feeds = {"kind": "ccxt", "exchange": config.exchange, "symbol": config.symbol}
    return {
        "format": "direction",
        "season": view.season if view is not None else None,
        "stream": stream,
        "clock": clock,
        "last_slot": None if last is None else utc_iso(last),
        "next_slot": utc_iso(upcoming[0]) if upcoming else None,
        "missed": missed_in(store, "direction", stream),
        "paused": [],
        "feeds": feeds,
    }


class DirectionHost:
    """The direction arena's ``host`` part (``host.plugin.HostPart[DirectionConfig]``)."""

    def parse(self, data: object, check: Check) -> DirectionConfig | None:
        """Return ``[direction]`` checked (see ``DirectionConfig.parse``)."""
        return DirectionConfig.parse(data, check)

    def driver(
        self,
        store: Store,
        config: DirectionConfig,
        *,
        clock: Clock | None,
        span: tuple[datetime, datetime] | None,
        prices: PriceTable | None = None,
    ) -> Driver:
        """Return the arena; under the replay clock it starts at the span's first round open."""
        from tradeleague.league.direction.driver import DirectionDriver  # the engine, when played

        first = None
        if clock is None and span is not None:
            first = DirectionDriver.first_open(span[0], span[1], config)
        return DirectionDriver(store, config, clock=clock, first=first, prices=prices)

    def status(
        self, store: Store, config: DirectionConfig | None, streams: Sequence[str], now: datetime
    ) -> list[dict[str, Any]]:
        """Return an entry per arena stream in the store, and the league file's."""
        arenas = arena_streams(streams)
        if config is not None and config.stream not in arenas:
            arenas.append(config.stream)
        return [_status(store, s, config, now) for s in sorted(arenas)]

    def status_lines(self, entry: Mapping[str, Any]) -> list[str]:
        """Return nothing: the summary line says it all."""
        return []

    def report(
        self,
        store: Store,
        season: str,
        config: DirectionConfig | None,
        *,
        stream: str | None,
        prices: PriceTable | None = None,
    ) -> dict[str, Any] | None:
        """Return the season's REPORT.json from the arena's stream, as its replay writes it."""
        name = stream or (config.stream if config is not None else _STREAM)
        view = fold(s.event for s in store.events(name)).seasons.get(season)
        if view is None:
            return None
        preset = DirectionPreset()
        board = build_board(
            view, scoring_version=preset.scoring_version, sparkline=preset.sparkline
        )
        payload = report_payload(board)
        payload["answers"] = answers_payload(store, name, of_season=season)
        payload["costs"] = season_costs_payload(
            store, name, paper_values(board), prices, of_season=season
        )
        return payload

    def boards(
        self, store: Store, season: str, config: DirectionConfig | None
    ) -> list[RenderableType]:
        """Return the latest board of the arena's stream ``season``, as its replay prints it."""
        from tradeleague.league.direction.board_table import board_table

        view = fold(s.event for s in store.events(season)).current
        if view is None:
            return []
        preset = DRILL if config is not None and config.drill else DirectionPreset()
        board = build_board(
            view, scoring_version=preset.scoring_version, sparkline=preset.sparkline
        )
        causes = {s.agent: s.faults for s in summarise(store, season)}
        return [board_table(board, causes=causes)]

    async def check(self, config: DirectionConfig) -> list[AgentCheck] | None:
        """Ask each model agent the arena's first round over ``market`` once (in memory)."""
        from tradeleague.league.check import calls_models
        from tradeleague.league.direction.replay_run import ReplayRequest, check_calls, plan

        specs = [f"{a.name}={a.spec}" for a in config.agents]
        if not calls_models(specs):
            return []
        if config.market is None:
            return None
        request = ReplayRequest(
            market=config.market, agents=specs, payout=config.payout, stream=config.stream
        )
        return await check_calls(plan(request))

    def feed_faults(self, events: Sequence[Event]) -> list[str] | None:
        """Return the round's feed fault: no price at its open; ``None`` without a round."""
        symbol, faults = None, []
        for event in events:
            if event.kind == EventKind.ROUND_STARTED:
                symbol = str(event.payload.get("symbol"))
            elif event.kind == ROUND_VOIDED and event.payload.get("reason") == _NO_DATA:
                faults.append(f"{symbol or 'price'}: {_NO_DATA}")
        return None if symbol is None and not faults else faults


def arena_streams(streams: Sequence[str]) -> list[str]:
    """Return the arenas' own streams among ``streams``, not the visitors' beside them.

    A visitors' stream is ``{stream}/visitors/{round}``.
    """
    return [s for s in streams if s.startswith(_STREAM) and "/visitors/" not in s]


HOST = DirectionHost()
"""The direction arena's ``host`` part, named in its ``Format``."""
