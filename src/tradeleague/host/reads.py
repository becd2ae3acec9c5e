"""What ``tradeleague status`` and ``tradeleague report`` read from a store (issue 12).

``status`` lists each format's seasons with their last and next slot, the
slots recorded as missed and the paused agents; ``season_report`` writes the
same REPORT.json the format's replay command writes, from the store alone.
Both ask each installed format's ``host`` part (``host.plugin.HostPart``), in
listing order: the host knows no format's seasons or streams itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.host.config import LeagueConfig, hosted_formats
from tradeleague.plugin import get
from tradeleague.store import Store

__all__ = ["season_report", "status", "status_lines"]


def _streams(store: Store) -> list[str]:
    return store.streams()


def _config(config: LeagueConfig | None, key: str) -> object | None:
    return config.formats.get(key) if config is not None else None


def status(store: Store, config: LeagueConfig | None, now: datetime) -> dict[str, Any]:
    """Return ``{"formats": [...]}`` for ``tradeleague status --json``.

    Each entry: ``format``, ``season``, ``last_slot``, ``next_slot``,
    ``missed`` (``slot``, ``reason``), ``paused`` (``agent``, ``reason``) and
    ``feeds``, and what the format adds (the arena's entries name their
    ``stream``, the weights seasons their ``universe``); the formats in listing
    order, each format's seasons in the order of their ids.
    """
    streams = _streams(store)
    entries: list[dict[str, Any]] = []
    for fmt in hosted_formats():
        part = fmt.part("host")
        entries += part.status(store, _config(config, fmt.key), streams, now)
    return {"formats": entries}


def status_lines(body: Mapping[str, Any]) -> list[str]:
    """Return ``tradeleague status``'s text: a line per entry, and what its format adds."""
    lines: list[str] = []
    for entry in body["formats"]:
        lines.append(
            f"{entry['format']} {entry['season']}: last slot {entry['last_slot'] or '-'}, "
            f"next {entry['next_slot'] or '-'}, {len(entry['missed'])} missed, "
            f"{len(entry['paused'])} paused"
        )
        lines += [f"  {line}" for line in get(entry["format"]).part("host").status_lines(entry)]
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
