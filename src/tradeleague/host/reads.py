"""What ``tradeleague status`` and ``tradeleague report`` read from a store (issue 12).

``status`` lists each format's seasons with their last and next slot (in the
clock the season was recorded under: a replayed season's next slot is in
replay time), the slots recorded as missed, the paused agents and each
agent's valid-answer rate and last outcome; ``season_report`` writes the
same REPORT.json the format's replay command writes, from the store alone.
Both ask each installed format's ``host`` part (``host.plugin.HostPart``), in
listing order: the host knows no format's seasons or streams itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.host.config import LeagueConfig, hosted_formats
from tradeleague.league.answers import DECISION, season_streams, turn_ends
from tradeleague.money import percent_2dp
from tradeleague.plugin import get
from tradeleague.store import Store

__all__ = ["agent_rates", "season_report", "status", "status_lines"]

VALID: str = "valid"
"""The last outcome of an agent whose last turn ended in a valid answer (a decision)."""


def _streams(store: Store) -> list[str]:
    return store.streams()


def _config(config: LeagueConfig | None, key: str) -> object | None:
    return config.formats.get(key) if config is not None else None


def agent_rates(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Return each agent's turns, valid answers, valid-answer rate and last outcome.

    A turn's valid answer is a decision (``league.answers.turn_ends``); its
    last outcome is ``valid`` or the reason code its last turn ended with
    (``not_in_format``, ``timeout``...). Agents in the order of their first turn.
    """
    agents: dict[str, dict[str, Any]] = {}
    for end in turn_ends(events):
        row = agents.setdefault(end.agent, {"agent": end.agent, "turns": 0, "valid": 0})
        row["turns"] += 1
        row["valid"] += end.ending == DECISION
        row["last_outcome"] = VALID if end.ending == DECISION else end.reason or "unknown"
    for row in agents.values():
        row["valid_rate"] = row["valid"] / row["turns"]
    return list(agents.values())


def _season_events(store: Store, entry: Mapping[str, Any]) -> Iterator[Event]:
    """Yield the events of ``entry``'s season: its ``stream``'s, else its season's streams.

    In a stream several seasons share (the arena's), only those stamped with it.
    """
    season, stream = entry.get("season"), entry.get("stream")
    if not isinstance(season, str):
        return
    for name in (stream,) if isinstance(stream, str) else season_streams(season):
        for stored in store.events(name):
            if stored.event.payload.get("season", season) == season:
                yield stored.event


def status(store: Store, config: LeagueConfig | None, now: datetime) -> dict[str, Any]:
    """Return ``{"formats": [...]}`` for ``tradeleague status --json``.

    Each entry: ``format``, ``season``, ``last_slot``, ``next_slot``,
    ``missed`` (``slot``, ``reason``), ``paused`` (``agent``, ``reason``),
    ``feeds`` and ``agents`` (`agent_rates`: ``agent``, ``turns``, ``valid``,
    ``valid_rate``, ``last_outcome``), and what the format adds (``clock``,
    the arena's entries their ``stream``, the weights seasons their
    ``universe``); the formats in listing order, each format's seasons in the
    order of their ids.
    """
    streams = _streams(store)
    entries: list[dict[str, Any]] = []
    for fmt in hosted_formats():
        part = fmt.part("host")
        for entry in part.status(store, _config(config, fmt.key), streams, now):
            entry["agents"] = agent_rates(_season_events(store, entry))
            entries.append(entry)
    return {"formats": entries}


def _in_replay(entry: Mapping[str, Any]) -> str:
    return " (replay time)" if entry.get("clock") == "replay" else ""


def _agent_line(row: Mapping[str, Any]) -> str:
    rate = percent_2dp(row["valid"], row["turns"])
    never = " (never a valid answer)" if row["valid"] == 0 else ""
    return (
        f"{row['agent']}: {row['valid']} of {row['turns']} turns valid ({rate}%){never}, "
        f"last {row['last_outcome']}"
    )


def status_lines(body: Mapping[str, Any]) -> list[str]:
    """Return ``tradeleague status``'s text: a line per entry, what its format adds, its agents."""
    lines: list[str] = []
    for entry in body["formats"]:
        lines.append(
            f"{entry['format']} {entry['season']}: last slot {entry['last_slot'] or '-'}, "
            f"next {entry['next_slot'] or '-'}{_in_replay(entry)}, {len(entry['missed'])} missed, "
            f"{len(entry['paused'])} paused"
        )
        lines += [f"  {line}" for line in get(entry["format"]).part("host").status_lines(entry)]
        lines += [f"  {_agent_line(row)}" for row in entry.get("agents", ())]
    return lines


def season_report(
    store: Store,
    season: str,
    config: LeagueConfig | None = None,
    *,
    stream: str | None = None,
) -> dict[str, Any]:
    """Return REPORT.json of ``season``: the first format (in listing order) that holds it.

    ``stream`` is the stream the operator named (``--stream``), for a format
    whose seasons share one stream (the arena's; else the league file's).

    Raises
    ------
    ConfigError
        If the store holds no such season.
    """
    hosted = hosted_formats()
    for fmt in hosted:
        body: dict[str, Any] | None = fmt.part("host").report(
            store,
            season,
            _config(config, fmt.key),
            stream=stream,
            prices=None if config is None else config.prices,
        )
        if body is not None:
            return body
    keys = [f.key for f in hosted]
    either = " or ".join([", ".join(keys[:-1]), keys[-1]] if len(keys) > 1 else keys)
    where = f" (in the stream {stream!r})" if stream is not None else ""
    raise ConfigError(f"the store holds no {either} season {season!r}{where}")
