"""The thesis league's read models: one function per figure, for the JSON API and the pages.

Every figure is folded from the season's events (``league/thesis/state.py``)
and shaped by the same functions that write REPORT.json, so the board page,
``/api/v1/thesis`` and the report cannot disagree. The agent page is the
transparency page: every cycle's attempts, each decision with its thesis,
invalidation level and status, and the model's reasoning (T-CYC-10).

The board's luckiest-of-N line is the season's no-skill null
(``league/thesis/null.board_null``, from the prices the season recorded,
checked against its folders while they are at hand), simulated once per
season and event count and kept; its ``baseline_cloud`` is the same
null's distribution of final returns, each agent on the board placed in it
(``SeasonNull.cloud_payload``, as the weights and scenario boards serve
it), ``None`` where there is no line.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Annotated, Any, Final

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse

from tradeleague.api.models import error_responses
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import EventKind
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.weights.text import plain_text
from tradeleague.league.bodies import DatedChangesOut, SeasonsOut, answer_of
from tradeleague.league.costs import SeasonCosts
from tradeleague.league.thesis.changelog import thesis_changelog
from tradeleague.league.thesis.models import ThesisAgentOut, ThesisBoardOut
from tradeleague.league.thesis.null import board_null
from tradeleague.league.thesis.report import board_rows, build_report, luck_payload, paper_values
from tradeleague.league.thesis.state import SeasonState
from tradeleague.league.thesis.story import thesis_story, thesis_versus
from tradeleague.llm.token_prices import PriceTable
from tradeleague.money import micros_to_str
from tradeleague.stats.null import SeasonNull
from tradeleague.store import Store, StoredEvent
from tradeleague.store.live_fold import StreamFold
from tradeleague.web.errors import NotFound, json_answer

__all__ = ["ThesisReads", "thesis_router"]

_PREFIX = f"{tev.FORMAT}/"


_SEASON_CACHE: Final = 16
"""Seasons the read models keep folded in memory (the most recently read)."""
_NULL_CACHE: Final = 8
"""Boards' no-skill nulls kept, each for its season at one event count."""


def _note_season(seasons: list[str], stored: StoredEvent) -> None:
    e = stored.event
    if e.kind == EventKind.SEASON_STARTED and e.stream.startswith(_PREFIX):
        seasons.append(str(e.payload["season"]))


class ThesisReads:
    """Read models of the thesis seasons in one store.

    Each season is folded once and caught up from the last seq seen on each
    read (`StreamFold`), the index likewise, so a page costs what was appended
    since the last read, not a replay of the season.

    Parameters
    ----------
    store
        The event store.
    preset
        The rules the seasons ran with.
    """

    def __init__(
        self,
        store: Store,
        preset: ThesisPreset | None = None,
        *,
        prices: PriceTable | None = None,
    ) -> None:
        self._store = store
        self.preset = preset or ThesisPreset()
        self._costs = SeasonCosts(prices)
        self._folds: dict[str, StreamFold[SeasonState]] = {}
        self._folds_lock = threading.Lock()
        self._index: StreamFold[list[str]] = StreamFold(None, list, _note_season)
        self._changes: tuple[int, list[dict[str, str]]] | None = None
        self._changes_lock = threading.Lock()
        self._nulls: dict[tuple[str, int], SeasonNull | None] = {}
        self._nulls_lock = threading.Lock()

    def _fold(self, season: str) -> StreamFold[SeasonState]:
        with self._folds_lock:
            fold = self._folds.pop(season, None) or StreamFold(
                tev.season_stream(season),
                lambda: SeasonState(self.preset),
                lambda state, stored: state.apply(stored.event),
            )
            self._folds[season] = fold  # the most recently read last
            while len(self._folds) > _SEASON_CACHE:
                del self._folds[next(iter(self._folds))]
        return fold

    def _null(self, season: str, state: SeasonState) -> SeasonNull | None:
        """Return the board's null; a season's log only grows, so its last seq keys it."""
        key = (season, self._fold(season).last_seq)
        with self._nulls_lock:
            if key not in self._nulls:
                if len(self._nulls) >= _NULL_CACHE:
                    del self._nulls[next(iter(self._nulls))]
                self._nulls[key] = board_null(state)
            return self._nulls[key]

    @contextmanager
    def _state(self, season: str) -> Iterator[SeasonState]:
        """Yield the season caught up with the log, locked while the caller reads it."""
        with self._fold(season).current(self._store) as state:
            if not state.started:
                raise NotFound(f"no thesis season {season!r}")
            yield state

    def index(self) -> dict[str, Any]:
        """Return the thesis seasons in the store."""
        with self._index.current(self._store) as found:
            seasons = list(found)
        return {
            "disclaimer": DISCLAIMER,
            "seasons": seasons,
            "endpoints": [
                "/api/v1/thesis/{season}",
                "/api/v1/thesis/{season}/agents/{agent}",
                "/api/v1/thesis/changelog",
            ],
        }

    def changelog(self) -> dict[str, Any]:
        """Return every change that affects comparability, dated, across the seasons (C-3)."""
        with self._index.current(self._store) as found:
            seasons, head = list(found), self._index.last_seq
        # read from every season's events once per log head, not once per page
        with self._changes_lock:
            if self._changes is None or self._changes[0] != head:
                changes = thesis_changelog(
                    (s.event for s in self._store.events(tev.season_stream(season)))
                    for season in seasons
                )
                self._changes = (head, changes)
            changes = self._changes[1]
        return {"disclaimer": DISCLAIMER, "changes": [dict(c) for c in changes]}

    def board(self, season: str) -> dict[str, Any]:
        """Return a season's board: every metric, counts and verdicts (raises ``NotFound``)."""
        with self._state(season) as state:
            null = self._null(season, state)
            rows = board_rows(state, null)
            return {
                "disclaimer": DISCLAIMER,
                "season": season,
                "start": state.start,
                "end": state.end,
                "cycles": len(state.cycles),
                "ended": state.ended,
                "replay": state.replay,
                "scoring_version": state.scoring_version,
                "prompt_version": state.prompt_version,
                "rows": rows,
                "luckiest_of_n": luck_payload(null),
                "baseline_cloud": _cloud_payload(state, null, rows),
                **thesis_story(state, null, rows),
                "costs": self._costs.payload(self._store, season, paper_values(state)),
            }

    def agent(self, season: str, name: str) -> dict[str, Any]:
        """Return one agent's entries, decisions, theses, closes and equity (raises ``NotFound``).

        ``equity``: the account's value from the start cash, then after each cycle it played.
        """
        with self._state(season) as state:
            report = build_report(state, self._null(season, state))
            costs = self._costs.payload(self._store, season, paper_values(state))
            start = int(state.preset.start_cash)
            equity = {n: [start, *a.equity] for n, a in state.agents.items()}
            versus = thesis_versus(state, name) if name in state.agents else None
        agents = report["agents"]
        for row in agents if isinstance(agents, list) else []:
            if row["name"] == name:
                return {
                    "disclaimer": DISCLAIMER,
                    "season": season,
                    **_escaped(row),
                    "equity": [micros_to_str(v) for v in equity[name]],
                    "versus": versus,
                    "cost": costs["agents"].get(name),
                    "pricing": {k: costs[k] for k in ("pricing_version", "priced", "unit")},
                }
        raise NotFound(f"no agent {name!r} in thesis season {season!r}")


def _cloud_payload(
    state: SeasonState, null: SeasonNull | None, rows: list[dict[str, object]]
) -> dict[str, Any] | None:
    """Return the null's distribution with each board row placed in it; ``None`` with no null.

    A row's mark is its return as the board shows it and its last equity, the
    final value the null's agents are compared with.
    """
    if null is None:
        return None
    return null.cloud_payload(
        (
            str(r["name"]),
            str(r["name"]),
            Decimal(str(r["return"])),
            state.agents[str(r["name"])].equity[-1],
        )
        for r in rows
    )


_MODEL_TEXT = frozenset(
    {"raw_answer", "reasoning", "thesis", "invalidation", "rationale", "spec", "detail"}
)


def _escaped(value: Any, key: str = "") -> Any:
    """Return ``value`` with every model-written text escaped once for HTML (C-10)."""
    if isinstance(value, dict):
        return {k: _escaped(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_escaped(v, key) for v in value]
    if isinstance(value, str) and key in _MODEL_TEXT:
        return plain_text(value)
    return value


SeasonPath = Annotated[str, Path(description="The season's id (GET /api/v1/thesis lists them).")]


def thesis_router(reads: ThesisReads) -> APIRouter:
    """Return the JSON routes under ``/api/v1/thesis``."""
    router = APIRouter(prefix="/api/v1/thesis", tags=["thesis"], responses=error_responses(404))

    @router.get("", summary="The thesis seasons in the store", responses=answer_of(SeasonsOut))
    def index() -> JSONResponse:
        """List the thesis seasons in the store: status, window and links to each.

        Public: no key, no quota.
        """
        return json_answer(reads.index)

    @router.get(
        "/changelog",
        summary="The changes that affect comparability, dated",
        responses=answer_of(DatedChangesOut),
    )
    def changelog() -> JSONResponse:
        """List the dated changes that affect comparability of the thesis league's seasons.

        Public: no key, no quota.
        """
        return json_answer(reads.changelog)

    @router.get("/{season}", summary="A season's board", responses=answer_of(ThesisBoardOut))
    def board(season: SeasonPath) -> JSONResponse:
        """Return a season's board: agents ranked by return (percent), with the luck test.

        Public: no key, no quota.
        """
        return json_answer(lambda: reads.board(season))

    # ``:path``: a name may hold ``/``; matched whole, so any name round-trips.
    @router.get(
        "/{season}/agents/{agent:path}",
        summary="An agent's decisions and theses",
        responses=answer_of(ThesisAgentOut),
    )
    def agent(
        season: SeasonPath,
        agent: Annotated[str, Path(description="The agent's name on the board.")],
    ) -> JSONResponse:
        """Return an agent's decisions and theses in a season, with each one's outcome.

        Public: no key, no quota.
        """
        return json_answer(lambda: reads.agent(season, agent))

    return router
