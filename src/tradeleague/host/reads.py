"""What ``tradeleague status`` and ``tradeleague report`` read from a store (issue 12).

``status`` lists each format's seasons with their last and next slot, the
slots recorded as missed and the paused agents; ``season_report`` writes the
same REPORT.json the format's replay command writes, from the store alone
(a weights season, a thesis season, or a season of the arena's stream).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from tradeleague.errors import ConfigError
from tradeleague.events import EventKind, utc_iso
from tradeleague.events import thesis as tev
from tradeleague.events import weights as wev
from tradeleague.formats.direction.board import build_board
from tradeleague.formats.direction.ledger import fold
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.publish import report_payload
from tradeleague.formats.direction.timing import round_opens
from tradeleague.formats.thesis.calendar import close_instant, cycle_times
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.weights import Division, WeightsPreset, round_hours_on
from tradeleague.host.config import LeagueConfig
from tradeleague.host.drivers import DRILL, missed_slots
from tradeleague.host.seasons import season_window
from tradeleague.league.answers import answers_payload
from tradeleague.league.thesis.null import board_null
from tradeleague.league.thesis.report import build_report as thesis_report
from tradeleague.league.thesis.state import SeasonState as ThesisState
from tradeleague.league.weights.report import build_report, season_luck
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import universe_view
from tradeleague.market.calendars import NYSE, get_calendar
from tradeleague.store import Store
from tradeleague.store.schema import events as events_table

__all__ = ["season_report", "status"]


def _streams(store: Store) -> list[str]:
    with store.engine.connect() as connection:
        rows = connection.execute(sa.select(events_table.c.stream).distinct()).all()
    return sorted(str(r[0]) for r in rows)


def _weights_state(store: Store, season: str) -> SeasonState:
    stream = wev.season_stream(season)
    return SeasonState.from_events(stream, (s.event for s in store.events(stream)))


def _next_weights(after: datetime, end: datetime | None) -> str | None:
    calendar = get_calendar(NYSE)
    day = after.date()
    for _ in range(15):
        if calendar.is_trading_day(day):
            for hour in round_hours_on(day, WeightsPreset()):
                if hour > after and (end is None or hour < end):
                    return utc_iso(hour)
        day += timedelta(days=1)
    return None


def _missed(store: Store, fmt: str, season: str) -> list[dict[str, str]]:
    return [
        {"slot": slot, "reason": reason}
        for slot, (where, reason) in sorted(missed_slots(store, fmt).items())
        if where == season
    ]


def _weights_status(
    store: Store, season: str, config: LeagueConfig | None, now: datetime
) -> dict[str, Any]:
    state = _weights_state(store, season)
    played = sorted(state.finished | set(state.closed_hours))
    last = played[-1] if played else None
    end = state.window.end if state.window is not None else None
    feeds: dict[str, Any] = {"kind": "frozen", "source": state.source} if state.source else {}
    if config is not None and config.weights is not None and config.weights.feeds is not None:
        feeds = {"kind": "chainlink", "registry": str(config.weights.feeds)}
    return {
        "format": "weights",
        "season": season,
        "last_slot": None if last is None else utc_iso(last),
        "next_slot": _next_weights(max(now, last) if last else now, end),
        "missed": _missed(store, "weights", season),
        "paused": [
            {"agent": name, "reason": agent.pause_reason or "paused"}
            for name, agent in sorted(state.agents.items())
            if agent.paused
        ],
        "feeds": feeds,
        "universe": universe_view(state) if state.started else None,
    }


def _direction_status(
    store: Store, stream: str, config: LeagueConfig | None, now: datetime
) -> dict[str, Any]:
    ledger = fold(s.event for s in store.events(stream))
    view = ledger.current
    direction = config.direction if config is not None else None
    preset = DRILL if direction is not None and direction.drill else DirectionPreset()
    opens = [
        datetime.fromisoformat(str(r.started["open_at"]).replace("Z", "+00:00"))
        for season in ledger.seasons.values()
        for r in season.rounds.values()
        if r.started.get("open_at")
    ]
    last = max(opens) if opens else None
    base = max(now, last) if last is not None else now
    upcoming = round_opens(base + timedelta(microseconds=1), base + 2 * preset.round_length, preset)
    feeds: dict[str, Any] = {"kind": "frozen"}
    if direction is not None and direction.market is None:
        feeds = {"kind": "ccxt", "exchange": direction.exchange, "symbol": direction.symbol}
    return {
        "format": "direction",
        "season": view.season if view is not None else None,
        "stream": stream,
        "last_slot": None if last is None else utc_iso(last),
        "next_slot": utc_iso(upcoming[0]) if upcoming else None,
        "missed": _missed(store, "direction", stream),
        "paused": [],
        "feeds": feeds,
    }


def _thesis_state(store: Store, season: str) -> ThesisState:
    stream = tev.season_stream(season)
    return ThesisState.from_events((s.event for s in store.events(stream)), ThesisPreset())


def _moment(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _thesis_status(
    store: Store, season: str, days: tuple[date, date] | None, now: datetime
) -> dict[str, Any]:
    """Return a thesis season's entry (``days``: its days, when the league file names them)."""
    state = _thesis_state(store, season)
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
    after = max(now, last) if last is not None else now
    later = [t for t in upcoming if t > after.timestamp()]
    opening = next((s.event for s in store.events(tev.season_stream(season))), None)
    feeds: dict[str, Any] = {}
    if opening is not None and opening.kind == EventKind.SEASON_STARTED:
        kind = "frozen" if opening.payload.get("replay") else "live"
        feeds = {"kind": kind, "sources": opening.payload.get("sources")}
    return {
        "format": "thesis",
        "season": season,
        "last_slot": None if last is None else utc_iso(last),
        "next_slot": utc_iso(datetime.fromtimestamp(later[0], UTC)) if later else None,
        "missed": _missed(store, "thesis", season),
        "paused": [],
        "feeds": feeds,
    }


def _current(
    name: str, start: date, end: date | None, roll: bool, now: datetime
) -> tuple[str, date, date] | None:
    """Return the league file's season holding ``now`` (before the league starts: its first).

    A league file of one season names it whenever ``now`` is.
    """
    if not roll and end is not None:
        return name, start, end
    return season_window(name, start, end, roll, max(now.date(), start))


def status(store: Store, config: LeagueConfig | None, now: datetime) -> dict[str, Any]:
    """Return ``{"formats": [...]}`` for ``tradeleague status --json``.

    Each entry: ``format``, ``season``, ``last_slot``, ``next_slot``,
    ``missed`` (``slot``, ``reason``), ``paused`` (``agent``, ``reason``) and
    ``feeds``; the arena's entries also name their ``stream``, the weights
    seasons their ``universe`` (``universe_view``: the symbols and what they
    were chosen from).
    """
    streams = _streams(store)
    seasons = [s.removeprefix("weights/") for s in streams if s.startswith("weights/")]
    # an arena's own stream, not the visitors' streams beside it (``{stream}/visitors/{round}``)
    arenas = [s for s in streams if s.startswith("direction") and "/visitors/" not in s]
    if config is not None and config.weights is not None:
        weights = config.weights
        current = _current(weights.season, weights.start, weights.end, weights.roll, now)
        if current is not None and current[0] not in seasons:
            seasons.append(current[0])
    if (
        config is not None
        and config.direction is not None
        and config.direction.stream not in arenas
    ):
        arenas.append(config.direction.stream)
    theses: dict[str, tuple[date, date] | None] = {
        s.removeprefix("thesis/"): None for s in streams if s.startswith("thesis/")
    }
    if config is not None and config.thesis is not None:
        thesis = config.thesis
        current = _current(thesis.season, thesis.start, thesis.end, thesis.roll, now)
        if current is not None:
            theses[current[0]] = current[1:]
    formats = [_weights_status(store, s, config, now) for s in sorted(seasons)]
    formats += [_direction_status(store, s, config, now) for s in sorted(arenas)]
    formats += [_thesis_status(store, s, theses[s], now) for s in sorted(theses)]
    return {"formats": formats}


def season_report(store: Store, season: str, *, stream: str = "direction") -> dict[str, Any]:
    """Return REPORT.json of ``season``: a weights or thesis season, or one of the arena's.

    Raises
    ------
    ConfigError
        If the store holds no such season.
    """
    state = _weights_state(store, season)
    if state.started:
        luck = {d: season_luck(state, d) for d in Division}
        payload = build_report(state, luck)
        payload["answers"] = answers_payload(store, season)  # as `replay weights --out` writes
        return payload
    thesis = _thesis_state(store, season)
    if thesis.started:
        body = thesis_report(thesis, board_null(thesis))  # the line from the record
        body["answers"] = answers_payload(store, season)  # as `replay thesis --out` writes it
        return body
    ledger = fold(s.event for s in store.events(stream))
    view = ledger.seasons.get(season)
    if view is None:
        raise ConfigError(
            f"the store holds no weights or thesis season {season!r} and no season "
            f"{season!r} in the direction stream {stream!r}"
        )
    preset = DirectionPreset()
    board = build_board(view, scoring_version=preset.scoring_version, sparkline=preset.sparkline)
    payload = report_payload(board)
    payload["answers"] = answers_payload(store, stream, of_season=season)
    return payload
