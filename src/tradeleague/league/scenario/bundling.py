"""A scenario's part of an audit bundle (`tradeleague.host.bundle.BundlePart`).

A scenario's "season" is a scenario version: its runs (one stream each,
``scenario-run/<id>``) and its bars. The bundle's ``market/`` holds the
version's config (``scenario.json``) and its bars (``bars.jsonl``, one bar of
one symbol a line), and its REPORT.json every run's account, status,
publication, equity path and results. Each is derived here from the run's
events and the bars with the simulator's own pieces: the account fold
(`sim.fold_account`), the config's fill prices (each fill at its bar's open
plus the configured slippage), the portfolio's equity at each bar's close,
and `compute_results`, the function a run's completion is scored with. A run
whose recorded fills, equity path or results disagree with the bars is named
with its event and bar.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from tradeleague.errors import ServiceError
from tradeleague.events import Event, EventKind, canonical_json, utc_iso
from tradeleague.events.scenario import (
    SCENARIO_RUN_ABANDONED,
    SCENARIO_RUN_COMPLETED,
    SCENARIO_RUN_PUBLISHED,
    SCENARIO_RUN_STARTED,
)
from tradeleague.events.streams import season_of
from tradeleague.formats.scenario import ScenarioBars, ScenarioConfig
from tradeleague.formats.scenario.metrics import compute_results
from tradeleague.sim import Portfolio
from tradeleague.sim.accounts import fold_account
from tradeleague.sim.fill import Fill
from tradeleague.store.bundle import BundleMismatch, EventMismatch

if TYPE_CHECKING:
    from tradeleague.store import Store, StoredEvent

__all__ = ["BUNDLE", "ScenarioBundlePart"]

SCENARIO_FILE: Final = "scenario.json"
BARS_FILE: Final = "bars.jsonl"
_RUN_KIND: Final = "scenario-run"
_FIELDS: Final = ("symbol", "index", "time", "open", "high", "low", "close", "volume")


def _bar_line(row: tuple[str, int, int, int, int, int, int, int]) -> str:
    return canonical_json(dict(zip(_FIELDS, row, strict=True)))


def _read_bars(text: str) -> ScenarioBars:
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
        return ScenarioBars.from_rows(rows)
    except (ValueError, IndexError, KeyError):
        raise BundleMismatch(f"The bars in market/{BARS_FILE} do not form a scenario.") from None


@dataclass(frozen=True, slots=True)
class _Version:
    id: str
    config: ScenarioConfig
    content_hash: str
    bars: ScenarioBars


def _version(season: str, market: Mapping[str, str]) -> _Version | None:
    text = market.get(SCENARIO_FILE)
    if text is None or BARS_FILE not in market:
        return None
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("id") != season:
            return None
        config = ScenarioConfig.from_json(canonical_json(doc["config"]))
        content_hash = str(doc["content_hash"])
    except (ValueError, KeyError, TypeError, RecursionError):
        raise BundleMismatch(f"market/{SCENARIO_FILE} is not a scenario's config.") from None
    return _Version(season, config, content_hash, _read_bars(market[BARS_FILE]))


@dataclass
class _Run:
    run: str
    account: str = ""
    portfolio: Portfolio | None = None
    status: str = "active"
    published_at: str | None = None
    liquidated: bool = False
    equity: list[int] = field(default_factory=list)
    step: int = 0
    result: dict[str, object] | None = None


def _bar_name(bars: ScenarioBars, index: int) -> str:
    return f"bar {index} ({utc_iso(bars.timestamp(index))})"


def _fill(run: _Run, stored: StoredEvent, version: _Version) -> None:
    """Apply one recorded fill after checking its price against its bar's open."""
    payload = stored.event.payload_view
    bars, index = version.bars, payload.get("index")
    raw = payload.get("fill")
    if type(index) is not int or not 1 <= index <= bars.last or not isinstance(raw, dict):
        raise EventMismatch(stored.seq, "is a fill with no bar of the scenario")
    try:
        fill = Fill.from_payload(dict(raw))
        quoted = bars.opens(index)[fill.symbol]
    except (ValueError, KeyError):
        raise EventMismatch(stored.seq, "is a fill the scenario's bars cannot price") from None
    expected = version.config.price_slippage().fill_price(fill.symbol, fill.side, quoted)
    if fill.price != expected:
        raise EventMismatch(
            stored.seq,
            f"fills {fill.symbol} at {fill.price} micro-dollars, but {_bar_name(bars, index)}'s "
            f"open of {fill.symbol} with the scenario's slippage gives {expected}",
        )
    _advance(run, index - 1, version, stored)
    run.portfolio = fold_account(run.portfolio, stored.event.kind, payload)


def _advance(run: _Run, to: int, version: _Version, stored: StoredEvent) -> None:
    """Value the account at each bar's close from the last step valued up to bar ``to``."""
    if run.portfolio is None:
        raise EventMismatch(stored.seq, "comes before the run's account was opened")
    while run.step < to:
        run.step += 1
        run.equity.append(int(run.portfolio.equity(version.bars.closes(run.step))))


def _completed(run: _Run, stored: StoredEvent, version: _Version) -> None:
    payload = stored.event.payload_view
    steps = payload.get("steps")
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= version.bars.last:
        raise EventMismatch(stored.seq, "completes the run after a number of steps it never had")
    _advance(run, steps, version, stored)
    recorded = payload.get("equity")
    if isinstance(recorded, list):
        for i, (text, value) in enumerate(zip(recorded, run.equity, strict=False)):
            if text != str(value):
                where = (
                    "the starting cash"
                    if i == 0
                    else f"the equity at {_bar_name(version.bars, i)}'s close"
                )
                raise EventMismatch(
                    stored.seq,
                    f"records {where} as {text} micro-dollars, but the run's fills and the bars "
                    f"give {value}",
                )
        if len(recorded) != len(run.equity):
            raise EventMismatch(
                stored.seq, f"records {len(recorded)} equity values, not {len(run.equity)}"
            )
    results = compute_results(
        run.equity, periods_per_year=version.config.periods_per_year, liquidated=run.liquidated
    ).to_payload()
    for name, figure in results.items():
        if payload.get(name) != figure:
            raise EventMismatch(
                stored.seq,
                f"records the run's {name} as {payload.get(name)!r}, but its equity path gives "
                f"{figure!r}",
            )
    run.status, run.result = "complete", dict(results)


def _run_of(events: list[StoredEvent], version: _Version) -> _Run:
    run = _Run(run=str(season_of(_RUN_KIND, events[0].event.stream)))
    for stored in events:
        event: Event = stored.event
        payload = event.payload_view
        if event.kind == SCENARIO_RUN_STARTED:
            if payload.get("content_hash") != version.content_hash:
                raise EventMismatch(stored.seq, "starts the run on other bars than the scenario's")
            run.account = str(payload.get("owner"))
        elif event.kind == EventKind.ACCOUNT_OPENED:
            run.portfolio = fold_account(run.portfolio, event.kind, payload)
            run.equity = [int(run.portfolio.cash)]
        elif event.kind == EventKind.ORDER_FILLED:
            _fill(run, stored, version)
        elif event.kind == EventKind.POSITION_LIQUIDATED:
            run.liquidated = True
        elif event.kind == SCENARIO_RUN_COMPLETED:
            _completed(run, stored, version)
        elif event.kind == SCENARIO_RUN_ABANDONED:
            run.status = "abandoned"
        elif event.kind == SCENARIO_RUN_PUBLISHED:
            run.published_at = utc_iso(event.occurred_at)
    return run


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
        }
        bars = "".join(_bar_line(row) + "\n" for row in scenario.bars.rows())
        return {SCENARIO_FILE: json.dumps(body, indent=2, sort_keys=True) + "\n", BARS_FILE: bars}

    def report(self, store: Store, season: str, market: Mapping[str, str]) -> dict[str, Any] | None:
        """Return the version's REPORT.json from its runs' events and the bars in ``market``."""
        version = _version(season, market)
        if version is None:
            return None
        runs = []
        for stream in self._run_streams(store, season):
            events = list(store.events(stream))
            runs.append(_run_of(events, version))
        if version.bars.content_hash() != version.content_hash:
            raise BundleMismatch(
                f"The bars in market/{BARS_FILE} are not the ones scenario {season} was "
                f"provisioned with (content hash {version.content_hash})."
            )
        return {
            "format": "scenario",
            "scenario": season,
            "name": version.config.name,
            "content_hash": version.content_hash,
            "bars": len(version.bars),
            "runs": [
                {
                    "run": r.run,
                    "account": r.account,
                    "status": r.status,
                    "published_at": r.published_at,
                    "results": r.result,
                    "equity": [str(v) for v in r.equity] if r.result is not None else None,
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
