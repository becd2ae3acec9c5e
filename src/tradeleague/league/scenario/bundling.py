"""A scenario's part of an audit bundle (`tradeleague.host.bundle.BundlePart`).

A scenario's "season" is a scenario version: its runs (one stream each,
``scenario-run/<id>``) and its bars. The bundle's ``market/`` holds the
version's row (``scenario.json``: its config, content hash, bar count,
dropped bars and creation time) and its bars (``bars.jsonl``, one bar of one
symbol a line), and its REPORT.json every run's account, status,
publication, equity path and results. Each run is replayed from its events on
the bundled bars by `tradeleague.store.run_replay.RunReplay`, the replay
`verify` holds a store's scenario tables to: the orders the log queues and
cancels are stepped through the simulator bar by bar, every fill and
liquidation must be the next event, and the completion must hold the results
and equity path the steps give. The version row's digest must be the one each
run's start event names, and the bars' content hash the row's. The first event
a replay contradicts is named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from tradeleague.errors import ServiceError
from tradeleague.events import canonical_json, utc_iso
from tradeleague.events.scenario import SCENARIO_RUN_STARTED
from tradeleague.formats.scenario import ScenarioBars, ScenarioConfig, version_digest
from tradeleague.store.bundle import BundleMismatch, EventMismatch
from tradeleague.store.run_replay import RunReplay, Version

if TYPE_CHECKING:
    from tradeleague.store import Store, StoredEvent

__all__ = ["BUNDLE", "ScenarioBundlePart"]

SCENARIO_FILE: Final = "scenario.json"
BARS_FILE: Final = "bars.jsonl"
_FIELDS: Final = ("symbol", "index", "time", "open", "high", "low", "close", "volume")


def _bar_line(row: tuple[str, int, int, int, int, int, int, int]) -> str:
    return canonical_json(dict(zip(_FIELDS, row, strict=True)))


def _read_bars(text: str, dropped: int) -> ScenarioBars:
    rows: list[tuple[str, int, int, int, int, int, int, int]] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            doc = json.loads(line)
            if not isinstance(doc, dict) or sorted(doc) != sorted(_FIELDS):
                raise ValueError("fields")
            symbol = doc["symbol"]
            index, time, o, h, low, c, v = (doc[name] for name in _FIELDS[1:])
            row = (symbol, index, time, o, h, low, c, v)
            if not isinstance(symbol, str) or any(type(x) is not int for x in row[1:]):
                raise ValueError("types")
            if _bar_line(row) != line:
                raise ValueError("not canonical")
        except (ValueError, RecursionError):
            raise BundleMismatch(
                f"Line {number} of market/{BARS_FILE} is not a bar written in canonical form."
            ) from None
        rows.append(row)
    try:
        return ScenarioBars.from_rows(rows, dropped)
    except (ValueError, IndexError, KeyError):
        raise BundleMismatch(f"The bars in market/{BARS_FILE} do not form a scenario.") from None


def _version(season: str, market: Mapping[str, str]) -> tuple[Version, ScenarioBars, str] | None:
    """Return the bundled version row (its bars, rules and row digest) and its content hash."""
    text = market.get(SCENARIO_FILE)
    if text is None or BARS_FILE not in market:
        return None
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("id") != season:
            return None
        config = ScenarioConfig.from_json(canonical_json(doc["config"]))
        content_hash = str(doc["content_hash"])
        number, dropped = doc["version"], doc["dropped"]
        created_at = datetime.fromisoformat(str(doc["created_at"]))
        if type(number) is not int or type(dropped) is not int or created_at.tzinfo is None:
            raise ValueError("types")
    except (ValueError, KeyError, TypeError, RecursionError):
        raise BundleMismatch(f"market/{SCENARIO_FILE} is not a scenario's config.") from None
    bars = _read_bars(market[BARS_FILE], dropped)
    digest = version_digest(
        season, config.name, number, config.to_json(), content_hash, len(bars), dropped, created_at
    )
    return Version(season, digest, bars, config, config.order_rules()), bars, content_hash


def _replayed(events: list[StoredEvent], version: Version) -> RunReplay:
    """Replay one run's stream on the bundled version; name the first event it contradicts."""
    start = events[0]
    payload = start.event.payload_view
    digest = payload.get("version_hash")  # none: started before orders were events (end only)
    if start.event.kind != SCENARIO_RUN_STARTED or digest not in (None, version.digest):
        raise EventMismatch(
            start.seq, "starts the run on another scenario version than the bundle's"
        )
    replay = RunReplay(
        run=str(payload.get("run")),
        scenario=version.id,
        owner=str(payload.get("owner")),
        started_at=start.event.occurred_at,
        version_hash=None if digest is None else version.digest,
        version=version,
    )
    for stored in events[1:]:
        replay.see(stored.seq, stored.event)
    if replay.problem is not None:
        detail = f"contradicts the run's replay on the bundled bars: {replay.problem.detail}"
        raise EventMismatch(replay.problem.seq, detail)
    return replay


def _name(version: Version) -> str:
    """Return the scenario's name (a bundled version always has its config)."""
    return "" if version.config is None else version.config.name


class ScenarioBundlePart:
    """A scenario version's runs and bars, for ``tradeleague export`` and ``verify --bundle``."""

    def streams(self, store: Store, season: str) -> list[str] | None:
        """Return the streams of the runs of scenario version ``season`` (None: no such version)."""
        if self._scenario(store, season) is None:
            return None
        return self._run_streams(store, season)

    def market(self, store: Store, season: str) -> dict[str, str]:
        """Return the version's config and bars as files."""
        scenario = self._scenario(store, season)
        if scenario is None:
            return {}
        body = {
            "id": scenario.id,
            "version": scenario.version,
            "content_hash": scenario.content_hash,
            "config": json.loads(scenario.config.to_json()),
            "dropped": scenario.bars.dropped,
            "created_at": utc_iso(scenario.created_at),
        }
        bars = "".join(_bar_line(row) + "\n" for row in scenario.bars.rows())
        return {SCENARIO_FILE: json.dumps(body, indent=2, sort_keys=True) + "\n", BARS_FILE: bars}

    def report(self, store: Store, season: str, market: Mapping[str, str]) -> dict[str, Any] | None:
        """Return the version's REPORT.json from its runs' events and the bars in ``market``."""
        read = _version(season, market)
        if read is None:
            return None
        version, bars, recorded = read
        runs = [
            _replayed(list(store.events(stream)), version)
            for stream in self._run_streams(store, season)
        ]
        if bars.content_hash() != recorded:  # after the replays: a run names a bar it read
            raise BundleMismatch(
                f"The bars in market/{BARS_FILE} are not the ones scenario {season} was "
                f"provisioned with (content hash {recorded})."
            )
        return {
            "format": "scenario",
            "scenario": season,
            "name": _name(version),
            "content_hash": recorded,
            "bars": len(bars),
            "runs": [
                {
                    "run": r.run,
                    "account": r.owner,
                    "status": r.status.value,
                    "published_at": None if r.published_at is None else utc_iso(r.published_at),
                    "results": None if r.results is None else json.loads(r.results),
                    "equity": [str(v) for v in r.path] if r.results is not None else None,
                }
                for r in runs
            ],
        }

    @staticmethod
    def _scenario(store: Store, season: str) -> Any:
        from tradeleague.clock import WallClock
        from tradeleague.league.scenario.service import ScenarioService

        try:
            return ScenarioService(store, WallClock()).scenario(season)  # reads only
        except ServiceError:
            return None

    @staticmethod
    def _run_streams(store: Store, season: str) -> list[str]:
        return [
            s.event.stream
            for s in store.events()
            if s.event.kind == SCENARIO_RUN_STARTED
            and s.event.payload_view.get("scenario") == season
        ]


BUNDLE: Final = ScenarioBundlePart()
