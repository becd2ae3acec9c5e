"""JSON read endpoints of the weights league (W-RNK-1..4, W-SCO-3, W-SEA-3, W-MKT-2, C-1, C-10).

A FastAPI ``APIRouter`` factory. Every response is folded from the season's
events (``SeasonState``, the one fold the league itself uses), kept in memory
and caught up from the last seq seen on each request (`StreamFold`), so what is
served is exactly what the log holds without replaying the season per read;
every response's root object carries the C-1 disclaimer. Model text (reasons,
summaries) is served as plain text under C-10: HTML-escaped, invisible
characters removed, and a strategy summary holding a web or wallet address
withheld. Keys are never served (C-9).

Routes, under ``prefix`` (default ``/api/v1/weights``):

- ``GET /``: the seasons in the store;
- ``GET /seasons/{season}``: the season: window, status, symbols, versions;
- ``GET /seasons/{season}/tables/{division}``: the division's table as published
  after its latest ranked round, unranked rows with their reason (W-RNK-1..4);
  each row with ``vs_cash`` and ``vs_buy_and_hold`` (ST-2: told apart from the
  baseline or not, with the p-value and the entries it rests on), and the
  table's ``significance``: the stated test and the luckiest-of-N line (ST-1, ST-2),
  the no-skill null simulated under the league's rules over the division's
  rounds; and ``baseline_cloud``: that null's distribution of final returns with
  more agents (bins of return and how many agents in each), each row's return
  placed against it (the percent of no-skill agents that ended below it);
  ``race``, every agent's account value after each entry, and ``story``, one
  sentence on the leader and whether its lead is within luck (``league.story``);
- ``GET /seasons/{season}/agents/{agent}``: an agent's page: entries (each with
  ``weights``: per symbol the weight it asked for and the weight it held after
  the round, in percent), trades,
  one chart point per trading day (W-SCO-3), reasons, summary (W-REC-3);
- ``GET /seasons/{season}/market``: the market's status at the latest round,
  open or closed and why, halted symbols and holds (W-MKT-1, W-MKT-2, W-HOLD-3);
- ``GET /seasons/{season}/universe``: the season's symbols and, when they were
  read from the chain at its start, every input: each feed on record, its price
  or why it is invalid, the token's supply, the value outstanding, the rank and
  why a symbol was left out (W-UNI-1);
- ``GET /universe``: the same for the latest season (the methodology page's).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Final

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse

from tradeleague.agents.cutoff import training_cutoff
from tradeleague.api.models import error_responses
from tradeleague.clock import Clock, WallClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import Event, EventKind
from tradeleague.events import weights as ev
from tradeleague.formats.weights import (
    LEAGUE_PAUSED,
    ClosedReason,
    Division,
    HaltReason,
    TableRow,
    UnrankedReason,
    WeightsPreset,
    chart_points,
    division_cap,
    plain_text,
)
from tradeleague.formats.weights.luck import AgentLuck, TableLuck
from tradeleague.ids import resolve_name
from tradeleague.league.bodies import DatedChangesOut, SeasonsOut, answer_of
from tradeleague.league.costs import SeasonCosts
from tradeleague.league.weights.changelog import changelog_entries
from tradeleague.league.weights.models import (
    WeightsAgentOut,
    WeightsMarketOut,
    WeightsSeasonOut,
    WeightsTableOut,
    WeightsUniverseOut,
)
from tradeleague.league.weights.report import paper_values, season_luck
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.story import weights_story, weights_versus
from tradeleague.league.weights.summary import Summary, latest_summaries
from tradeleague.league.weights.targets import asked_and_got
from tradeleague.league.weights.universe import universe_view
from tradeleague.llm.token_prices import PriceTable
from tradeleague.money import micros_to_str
from tradeleague.sim import Fill
from tradeleague.store import Store, StoredEvent
from tradeleague.store.live_fold import StreamFold
from tradeleague.web.errors import NotFound, json_answer

__all__ = ["NotFound", "StoreFactory", "WeightsReads", "weights_router"]

StoreFactory = Callable[[], AbstractContextManager[Store]]
"""Opens the store for one request: ``lambda: open_store(url, upgrade=False)``, or
``lambda: contextlib.nullcontext(store)`` to share one open store."""

UNRANKED_TEXT: Final = {
    UnrankedReason.FEW_TRADING_DAYS: "fewer than five trading days this season",
    UnrankedReason.FEW_DECISIONS: "fewer than three decisions this season",
    UnrankedReason.NOT_IN_LATEST_ROUND: "took no part in the latest ranked round",
}
HALT_TEXT: Final = {
    HaltReason.STALE: "its feed last published more than 25 hours before the read",
    HaltReason.PAUSED: "its token reports its feed paused",
    HaltReason.PAUSED_UNREADABLE: "its token's paused report could not be read",
    HaltReason.HOLD: "its price is on hold after a move of more than 30%",
}
CLOSED_TEXT: Final = {
    ClosedReason.NODE_UNREACHABLE: "prices could not be read from a node",
    ClosedReason.NODE_STALE: "the node's latest block is more than five minutes old",
    ClosedReason.INVALID_PRICE: "a feed returned no valid price",
    ClosedReason.TOO_MANY_HALTED: "more than two symbols are halted",
    ClosedReason.LEAGUE_PAUSED: LEAGUE_PAUSED,
    ClosedReason.NO_RECENT_UPDATE: "no feed has published in the last three hours",
}


_LUCK_CACHE: Final = 32
"""Tables whose ST-2 columns the router keeps computed."""

_SEASON_CACHE: Final = 16
"""Seasons the read models keep folded in memory (the most recently read)."""


@dataclass(slots=True)
class _Season:
    """A season folded from its events, with what the state does not keep."""

    state: SeasonState
    fills: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    market: Event | None = None
    reads: dict[str, list[Mapping[str, object]]] = field(default_factory=dict)
    summaries: dict[str, Summary] = field(default_factory=dict)
    targets: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    events: int = 0


def _apply(folded: _Season, stored: StoredEvent) -> None:
    """Fold one more event of the season's stream into ``folded``."""
    e = stored.event
    folded.state.apply(e)
    folded.events += 1
    if e.kind == EventKind.ORDER_FILLED:
        p = e.payload
        fill = Fill.from_payload(p["fill"])  # type: ignore[arg-type]
        folded.fills.setdefault(str(p["account"]), []).append(_fill(fill, p.get("round")))
    elif e.kind in (EventKind.ROUND_STARTED, ev.MARKET_CLOSED):
        folded.market = e
    elif e.kind == EventKind.PRICE_READ:
        p = e.payload
        folded.reads.setdefault(str(p["round"]), []).append(p)
    else:
        if e.kind == EventKind.DECISION_MADE:
            p = e.payload
            asked: Mapping[str, object] = p["targets"]  # type: ignore[assignment]
            folded.targets[(str(p["agent"]), str(p["round"]))] = {
                k: int(str(v)) for k, v in asked.items()
            }
        folded.summaries.update(latest_summaries([e]))


def _season_fold(season: str, preset: WeightsPreset | None) -> StreamFold[_Season]:
    stream = ev.season_stream(season)
    return StreamFold(
        stream, lambda: _Season(SeasonState(stream, preset or WeightsPreset())), _apply
    )


def _fill(fill: Fill, round_text: object) -> dict[str, Any]:
    return {
        "round": None if round_text is None else str(round_text),
        "symbol": fill.symbol,
        "side": fill.side.value,
        "qty": micros_to_str(fill.qty),
        "price": micros_to_str(fill.price),
        "value": micros_to_str(fill.value),
        "fee": micros_to_str(fill.fee),
        "slippage": micros_to_str(fill.slippage),
    }


def _status(state: SeasonState, now: datetime) -> str:
    if state.window is None:
        return "unknown"
    if state.ended or now >= state.window.end:
        return "ended"
    return "running" if state.window.running(now) else "upcoming"


def _cutoff(state: SeasonState, agent: str) -> dict[str, Any] | None:
    """Return the agent's training-cutoff mark for the season's first day (`training_cutoff`)."""
    a = state.agents.get(agent)
    if a is None or state.window is None:
        return None
    return training_cutoff(a.spec, state.window.start.date())


def _row(row: TableRow, luck: AgentLuck, cutoff: dict[str, Any] | None) -> dict[str, Any]:
    reason = row.unranked_reason
    return {
        "rank": row.rank,
        "agent": row.agent,
        "name": plain_text(row.name),
        "value": micros_to_str(row.value),
        "season_return": str(row.season_return),
        "max_drawdown": str(row.max_drawdown),
        "trades": row.trades,
        "decisions": row.decisions,
        "entries": row.entries,
        "unranked_reason": None if reason is None else reason.value,
        "unranked_text": None if reason is None else UNRANKED_TEXT[reason],
        "vs_cash": luck.vs_cash.to_payload(),
        "vs_buy_and_hold": luck.vs_buy_and_hold.to_payload(),
        "alpha": luck.alpha_payload(),
        "training_cutoff": cutoff,
    }


def _season_payload(s: _Season, now: datetime) -> dict[str, Any]:
    state = s.state
    window = state.window
    if window is None:  # pragma: no cover - a started season always has a window
        raise NotFound(f"season {state.season_id} has no window")
    status = _status(state, now)
    return {
        "disclaimer": DISCLAIMER,
        "season": state.season_id,
        "start": ev.iso(window.start),
        "end": ev.iso(window.end),
        "status": status,
        "final": status == "ended",
        "joinable": status == "running",
        "symbols": list(state.symbols),
        "source": state.source,
        "synthetic": state.synthetic,
        "replay": state.replay,
        "scoring_version": state.preset.scoring_version,
        "prompt_version": state.preset.prompt_version,
        "divisions": {
            d.value: {
                "agents": sum(a.division is d for a in state.agents.values()),
                "cap": division_cap(d, state.preset),
            }
            for d in Division
        },
        "rounds": len(state.rounds),
        "closed_rounds": len(state.closed_hours),
        "holds": sorted(state.holds),
    }


def _table_payload(
    s: _Season, division: Division, now: datetime, luck: TableLuck
) -> dict[str, Any]:
    state = s.state
    ranked = state.ranked_rounds.get(division)
    rows = state.table(division)
    return {
        "disclaimer": DISCLAIMER,
        "season": state.season_id,
        "division": division.value,
        "scoring_version": state.preset.scoring_version,
        "published_after": None if ranked is None else ev.iso(ranked),
        "final": _status(state, now) == "ended",
        "significance": luck.to_payload(),
        "baseline_cloud": _cloud_payload(luck, rows),
        "rows": [_row(r, luck.rows[r.agent], _cutoff(state, r.agent)) for r in rows],
        **weights_story(state, division, luck),
    }


def _cloud_payload(luck: TableLuck, rows: list[TableRow]) -> dict[str, Any] | None:
    """Return the null's distribution with each row placed in it; ``None`` with no null."""
    if luck.null is None:
        return None
    return luck.null.cloud_payload(
        (r.agent, plain_text(r.name), r.season_return, int(r.value)) for r in rows
    )


def _agent_payload(
    s: _Season, agent: str, luck_of: Callable[[Division], TableLuck]
) -> dict[str, Any]:
    state = s.state
    a = state.agents.get(agent)
    if a is None:
        raise NotFound(f"no agent {agent!r} in season {state.season_id}")
    row = next(r for r in state.table(a.division) if r.agent == agent)
    # the agent's row of its table's verdicts (`agent_season_luck` gives the same), so
    # the bootstrap runs once per log change, not once per page read
    reasons = {hour: text for hour, text in a.reasons}
    books = state.entry_books.get(agent, [])
    entries = []
    for entry, (value, cash, holdings) in zip(a.entries, books, strict=True):
        reason = reasons.get(entry.round) if entry.reason_code is None else None
        hour = ev.iso(entry.round)
        prices = {
            str(r["symbol"]): int(str(r["price"]))
            for r in s.reads.get(hour, [])
            if r.get("price") is not None
        }
        entries.append(
            {
                "round": ev.iso(entry.round),
                "kind": entry.kind.value,
                "reason_code": entry.reason_code,
                "reason": None if reason is None else plain_text(reason),
                "value": micros_to_str(value),
                "cash": micros_to_str(cash),
                "holdings": {k: micros_to_str(q) for k, q in sorted(holdings.items())},
                "weights": asked_and_got(s.targets.get((agent, hour)), holdings, value, prices),
            }
        )
    summary = s.summaries.get(agent, Summary(None, None))
    return {
        "disclaimer": DISCLAIMER,
        "season": state.season_id,
        "scoring_version": state.preset.scoring_version,
        "prompt_version": state.preset.prompt_version,
        "agent": {
            "id": a.agent,
            "name": plain_text(a.name),
            "division": a.division.value,
            "created_at": ev.iso(a.created_at),
            "paused": a.paused,
        },
        "standing": _row(row, luck_of(a.division).rows[agent], _cutoff(state, agent)),
        "benchmark": luck_of(a.division).benchmark,
        "scatter": [{"benchmark": b, "agent": x} for x, b in luck_of(a.division).rows[agent].steps],
        "summary": summary.shown,
        "summary_hidden": summary.hidden,
        "entries": entries,
        "trades": s.fills.get(agent, []),
        "chart": [
            {"day": d.isoformat(), "value": micros_to_str(v)} for d, v in chart_points(a.entries)
        ],
        "versus": weights_versus(state, agent, luck_of(a.division).benchmark),
    }


def _market_payload(s: _Season) -> dict[str, Any]:
    state = s.state
    base: dict[str, Any] = {
        "disclaimer": DISCLAIMER,
        "season": state.season_id,
        "holds": sorted(state.holds),
    }
    if s.market is None:
        return {**base, "status": "unknown", "text": "No round has been read yet", "round": None}
    p = s.market.payload
    round_text = str(p["round"])
    invalid = {
        str(r["symbol"]): str(r["invalid"]) for r in s.reads.get(round_text, []) if r.get("invalid")
    }
    if s.market.kind == ev.MARKET_CLOSED:
        codes = [ClosedReason(str(c)) for c in p["reasons"]]  # type: ignore[attr-defined]
        paused = ClosedReason.LEAGUE_PAUSED in codes
        return {
            **base,
            "status": "league_paused" if paused else "closed",
            "text": str(p["status"]),
            "round": round_text,
            "read_at": str(p["read_at"]),
            "reasons": [{"code": c.value, "text": CLOSED_TEXT[c]} for c in codes],
            "invalid": invalid,
        }
    halted: Mapping[str, list[str]] = p["halted"]  # type: ignore[assignment]
    return {
        **base,
        "status": "open",
        "text": "Market open",
        "round": round_text,
        "forced": bool(p.get("forced", False)),
        "open_round": bool(p.get("open_round", False)),
        "read_at": str(p["read_at"]),
        "reasons": [],
        "invalid": invalid,
        "prices": {k: micros_to_str(int(str(v))) for k, v in p["prices"].items()},  # type: ignore[attr-defined]
        "halted": {
            sym: [{"code": c, "text": HALT_TEXT[HaltReason(c)]} for c in codes]
            for sym, codes in sorted(halted.items())
        },
    }


def _note_season(seasons: list[str], stored: StoredEvent) -> None:
    e = stored.event
    if e.kind == EventKind.SEASON_STARTED and e.stream.startswith(ev.STREAM_PREFIX):
        seasons.append(str(e.payload["season"]))


class WeightsReads:
    """The weights league's read models: one function per figure, for the JSON API and pages.

    Parameters
    ----------
    store_factory
        Opens the event store for one read (``StoreFactory``).
    prefix
        Where the JSON routes are mounted (named in the index).
    clock
        Tells whether a season is upcoming, running or ended (default: the wall clock).
    preset
        The rules the seasons were played with.
    prices
        The price table each table's and agent's costs are priced with (``None``: unpriced).
    """

    def __init__(
        self,
        store_factory: StoreFactory,
        *,
        prefix: str = "/api/v1/weights",
        clock: Clock | None = None,
        preset: WeightsPreset | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self._store_factory = store_factory
        self._costs = SeasonCosts(prices)
        self._prefix = prefix
        self._now: Callable[[], datetime] = (clock or WallClock()).now
        self.preset = preset or WeightsPreset()
        self._lucks: dict[tuple[str, Division, int], TableLuck] = {}
        self._lucks_lock = threading.Lock()
        # each season folded once and caught up on each read (the few latest kept)
        self._folds: dict[str, StreamFold[_Season]] = {}
        self._folds_lock = threading.Lock()
        self._index: StreamFold[list[str]] = StreamFold(None, list, _note_season)
        self._changes: tuple[int, list[dict[str, str]]] | None = None
        self._changes_lock = threading.Lock()

    def _luck_of(self, s: _Season, division: Division) -> TableLuck:
        # The bootstrap is the costly part of a table; a season's log only grows, so
        # its event count keys the result (the few latest are kept).
        key = (s.state.season_id, division, s.events)
        with self._lucks_lock:  # shared by every season's reads
            if key not in self._lucks:
                if len(self._lucks) >= _LUCK_CACHE:
                    del self._lucks[next(iter(self._lucks))]
                self._lucks[key] = season_luck(s.state, division)
            return self._lucks[key]

    @contextmanager
    def _season(self, season_id: str) -> Iterator[_Season]:
        """Yield the season caught up with the log, locked while the caller reads it."""
        with self._folds_lock:
            fold = self._folds.pop(season_id, None) or _season_fold(season_id, self.preset)
            self._folds[season_id] = fold  # the most recently read last
            while len(self._folds) > _SEASON_CACHE:
                del self._folds[next(iter(self._folds))]
        with self._store_factory() as store, fold.current(store) as folded:
            if not folded.state.started:
                raise NotFound(f"no weights season {season_id!r}")
            yield folded

    def index(self) -> dict[str, Any]:
        """Return the seasons in the store."""
        with self._store_factory() as store, self._index.current(store) as found:
            seasons = list(found)
        prefix = self._prefix
        return {
            "disclaimer": DISCLAIMER,
            "seasons": seasons,
            "endpoints": [
                f"{prefix}/seasons/{{season}}",
                f"{prefix}/seasons/{{season}}/tables/{{division}}",
                f"{prefix}/seasons/{{season}}/agents/{{agent}}",
                f"{prefix}/seasons/{{season}}/market",
                f"{prefix}/seasons/{{season}}/universe",
                f"{prefix}/universe",
                f"{prefix}/changelog",
            ],
        }

    def changelog(self) -> dict[str, Any]:
        """Return every change that affects comparability, dated, across the seasons (C-3)."""
        with self._store_factory() as store:
            with self._index.current(store) as found:
                seasons, head = list(found), self._index.last_seq
            # the changes are read from every season's events: once per log head, not per page
            with self._changes_lock:
                if self._changes is None or self._changes[0] != head:
                    changes = changelog_entries(
                        (s.event for s in store.events(ev.season_stream(season)))
                        for season in seasons
                    )
                    self._changes = (head, changes)
                changes = self._changes[1]
        return {"disclaimer": DISCLAIMER, "changes": [dict(c) for c in changes]}

    def season(self, season_id: str) -> dict[str, Any]:
        """Return a season: window, status, versions (raises ``NotFound``)."""
        with self._season(season_id) as s:
            return _season_payload(s, self._now())

    def _costs_of(self, s: _Season, divisions: Sequence[Division]) -> dict[str, Any]:
        """Return the ``costs`` of the agents of ``divisions``, as REPORT.json holds them."""
        with self._store_factory() as store:
            values = paper_values(s.state, divisions)
            return self._costs.payload(store, s.state.season_id, values)

    def table(self, season_id: str, division: str) -> dict[str, Any]:
        """Return a division's table (W-RNK-1..4, ST-1, ST-2) and costs (raises ``NotFound``)."""
        d = _division_of(division)
        with self._season(season_id) as s:
            body = _table_payload(s, d, self._now(), self._luck_of(s, d))
            body["costs"] = self._costs_of(s, [d])
            return body

    def agent(self, season_id: str, agent: str) -> dict[str, Any]:
        """Return an agent's page (W-SCO-3, W-REC-3) and its cost (raises ``NotFound``).

        ``agent`` is its id or its name (`resolve_name`: an ambiguous name is a 409).
        """
        with self._season(season_id) as s:
            known = ((k, a.name) for k, a in s.state.agents.items())
            agent = resolve_name(agent, known, "agent") or agent
            body = _agent_payload(s, agent, lambda d: self._luck_of(s, d))
            costs = self._costs_of(s, [s.state.agents[agent].division])
            body["cost"] = costs["agents"].get(agent)
            body["pricing"] = {k: costs[k] for k in ("pricing_version", "priced", "unit")}
            return body

    def market(self, season_id: str) -> dict[str, Any]:
        """Return the market's status at the latest round (W-MKT-2) (raises ``NotFound``)."""
        with self._season(season_id) as s:
            return _market_payload(s)

    def universe(self, season_id: str | None = None) -> dict[str, Any]:
        """Return a season's universe and what it was built from (W-UNI-1).

        ``None``: the latest season (the last one started in the log). Raises
        ``NotFound`` for an unknown season, or when no season has started.
        """
        if season_id is None:
            with self._store_factory() as store, self._index.current(store) as found:
                if not found:
                    raise NotFound("no weights season has started yet")
                season_id = found[-1]
        with self._season(season_id) as s:
            return {"disclaimer": DISCLAIMER, **universe_view(s.state)}


SeasonId = Annotated[str, Path(description="The season's id (GET /api/v1/weights lists them).")]
DivisionKey = Annotated[str, Path(description="The division: open or pro.")]
AgentRef = Annotated[
    str, Path(description="The agent's id, or its name when no other agent of the season has it.")
]


def _division_of(text: str) -> Division:
    try:
        return Division(text)
    except ValueError:
        raise NotFound(f"no division {text!r}: open or pro") from None


def weights_router(
    store_factory: StoreFactory | None = None,
    *,
    prefix: str = "/api/v1/weights",
    clock: Clock | None = None,
    preset: WeightsPreset | None = None,
    reads: WeightsReads | None = None,
) -> APIRouter:
    """Return the weights league's read endpoints (see the module docstring).

    Parameters
    ----------
    store_factory
        Opens the event store for one request (``StoreFactory``); unused with ``reads``.
    prefix
        Where the routes are mounted.
    clock
        Tells whether a season is upcoming, running or ended (default: the wall clock).
    preset
        The rules the seasons were played with.
    reads
        The read models to serve (the site shares them with its pages).

    Raises
    ------
    ValueError
        If neither ``store_factory`` nor ``reads`` is given.
    """
    if reads is None:
        if store_factory is None:
            raise ValueError("weights_router needs a store factory or read models")
        reads = WeightsReads(store_factory, prefix=prefix, clock=clock, preset=preset)
    router = APIRouter(prefix=prefix, tags=["weights"], responses=error_responses(404))

    @router.get("", summary="The weights seasons in the store", responses=answer_of(SeasonsOut))
    def index() -> JSONResponse:
        """List the weights seasons in the store: status, window, divisions; links to each.

        Public: no key, no quota.
        """
        return json_answer(reads.index)

    @router.get(
        "/changelog",
        summary="The changes that affect comparability, dated",
        responses=answer_of(DatedChangesOut),
    )
    def changelog() -> JSONResponse:
        """List the dated changes that affect comparability of the weights league's seasons.

        Public: no key, no quota.
        """
        return json_answer(reads.changelog)

    @router.get(
        "/seasons/{season_id}",
        summary="A season: window, status, versions",
        responses=answer_of(WeightsSeasonOut),
    )
    def season_page(season_id: SeasonId) -> JSONResponse:
        """Return a season: its window, status and rule versions. Public: no key, no quota."""
        return json_answer(lambda: reads.season(season_id))

    @router.get(
        "/seasons/{season_id}/tables/{division}",
        summary="A division's table",
        responses=answer_of(WeightsTableOut),
    )
    def table(season_id: SeasonId, division: DivisionKey) -> JSONResponse:
        """Return a division's table: agents ranked, returns in percent, luck test beside.

        Public: no key, no quota.
        """
        return json_answer(lambda: reads.table(season_id, division))

    # ``:path``: an agent id may hold ``/``; it is matched whole, so any name round-trips.
    @router.get(
        "/seasons/{season_id}/agents/{agent:path}",
        summary="An agent's page",
        responses={**answer_of(WeightsAgentOut), **error_responses(409)},
    )
    def agent_page(season_id: SeasonId, agent: AgentRef) -> JSONResponse:
        """Return an agent's page in a season: its weights, returns and log.

        ``agent`` is the agent's id or its name; a name that several agents of
        the season share is refused (409 ``ambiguous_name``, with the candidates' ids).

        Public: no key, no quota.
        """
        return json_answer(lambda: reads.agent(season_id, agent))

    @router.get(
        "/seasons/{season_id}/market",
        summary="The market's status and why",
        responses=answer_of(WeightsMarketOut),
    )
    def market(season_id: SeasonId) -> JSONResponse:
        """Return the market's status for a season and why (open, closed, halted).

        Public: no key, no quota.
        """
        return json_answer(lambda: reads.market(season_id))

    @router.get(
        "/seasons/{season_id}/universe",
        summary="A season's universe and its inputs",
        responses=answer_of(WeightsUniverseOut),
    )
    def universe(season_id: SeasonId) -> JSONResponse:
        """Return a season's universe and the inputs it was chosen from.

        Public: no key, no quota.
        """
        return json_answer(lambda: reads.universe(season_id))

    @router.get(
        "/universe",
        summary="The latest season's universe and its inputs",
        responses=answer_of(WeightsUniverseOut),
    )
    def latest_universe() -> JSONResponse:
        """Return the latest season's universe and the inputs it was chosen from.

        Public: no key, no quota.
        """
        return json_answer(reads.universe)

    return router
