"""JSON endpoints of the direction arena (SPEC D-PUB-1..4, C-1).

A FastAPI ``APIRouter`` factory: every payload is folded from the event log
and built by ``tradeleague.formats.direction.publish``, so what is served is
exactly what the log holds, and an open round's calls do not exist in any
response (D-PUB-1). With an ``arena`` attached, visitors may log their own
call on the open round (D-PUB-2).

Routes (under ``/direction``): ``GET /`` (index), ``GET /rounds/current``,
``GET /rounds`` (finished rounds, every call), ``GET /rounds/{round}``,
``GET /models/{name}/log``, ``GET /config`` (the roster, exact model ids),
``GET /boards``, ``GET /changelog``, ``POST /rounds/current/calls``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, ConfigDict, Field

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.board import build_board
from tradeleague.formats.direction.ledger import Ledger, SeasonView
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.publish import (
    board_payload,
    changelog_payload,
    model_log_payload,
    roster_payload,
    round_payload,
)
from tradeleague.league.direction.arena import DirectionArena
from tradeleague.store import Store
from tradeleague.store.live_fold import StreamFold
from tradeleague.web.errors import NotFound

__all__ = ["DirectionReads", "VisitorCall", "direction_router"]


class VisitorCall(BaseModel):
    """A visitor's own call on the open round."""

    model_config = ConfigDict(extra="forbid")

    visitor: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    direction: Literal["up", "down"]


class DirectionReads:
    """The arena's read models: one function per figure, for the JSON API and pages.

    Parameters
    ----------
    store
        The event store holding the arena's stream.
    stream
        The arena's event stream.
    preset
        The rules (for the scoring version and the sparkline length).
    """

    def __init__(
        self, store: Store, *, stream: str = FORMAT, preset: DirectionPreset | None = None
    ) -> None:
        self.store = store
        self.stream = stream
        self.preset = preset or DirectionPreset()
        # the arena's ledger, folded once and caught up from the last seq on each read
        self._ledger: StreamFold[Ledger] = StreamFold(
            stream, Ledger, lambda ledger, stored: ledger.apply(stored.event)
        )

    @contextmanager
    def _view(self, season: str | None) -> Iterator[SeasonView]:
        """Yield the season's view caught up with the log, locked while the caller reads it."""
        with self._ledger.current(self.store) as ledger:
            view = ledger.seasons.get(season) if season else ledger.current
            if view is None:
                raise NotFound(f"no season {season or ''}".strip())
            yield view

    def index(self) -> dict[str, Any]:
        """Return the seasons and the endpoints."""
        with self._ledger.current(self.store) as ledger:
            seasons = list(ledger.seasons)
        return {
            "disclaimer": DISCLAIMER,
            "format": FORMAT,
            "seasons": seasons,
            "endpoints": [
                "/direction/rounds/current",
                "/direction/rounds",
                "/direction/rounds/{round}",
                "/direction/models/{name}/log",
                "/direction/config",
                "/direction/boards",
                "/direction/changelog",
            ],
        }

    def current_round(self) -> dict[str, Any]:
        """Return the latest round, its calls hidden while open (D-PUB-1)."""
        with self._view(None) as season:
            rounds = list(season.rounds.values())
            if not rounds:
                raise NotFound("no round yet")
            return round_payload(season, rounds[-1])

    def rounds(self, season: str | None = None, limit: int = 50) -> dict[str, Any]:
        """Return the latest ``limit`` finished rounds, newest first, every call."""
        with self._view(season) as view:
            finished = view.finished_rounds()[-limit:]
            return {
                "disclaimer": DISCLAIMER,
                "season": view.season,
                "rounds": [round_payload(view, r) for r in reversed(finished)],
            }

    def round(self, round_id: str, season: str | None = None) -> dict[str, Any]:
        """Return one round."""
        with self._view(season) as view:
            found = view.rounds.get(round_id)
            if found is None:
                raise NotFound(f"no round {round_id} in season {view.season}")
            return round_payload(view, found)

    def model_log(self, name: str, season: str | None = None) -> dict[str, Any]:
        """Return a model's full log (D-PUB-3)."""
        with self._view(season) as view:
            entrant = next((e for e in view.roster if e.name == name), None)
            entrant = entrant or view.visitors.get(name)
            if entrant is None:
                raise NotFound(f"no model {name} in season {view.season}")
            return model_log_payload(view, entrant)

    def config(self, season: str | None = None) -> dict[str, Any]:
        """Return the roster with exact model ids."""
        with self._view(season) as view:
            return roster_payload(view)

    def boards(self, season: str | None = None) -> dict[str, Any]:
        """Return the boards with the luck lines."""
        p = self.preset
        with self._view(season) as view:
            board = build_board(view, scoring_version=p.scoring_version, sparkline=p.sparkline)
            return board_payload(board)

    def changelog(self) -> dict[str, Any]:
        """Return the changes that affect comparability (C-3)."""
        with self._ledger.current(self.store) as ledger:
            return changelog_payload(ledger)


def direction_router(
    store: Store,
    *,
    stream: str = FORMAT,
    arena: DirectionArena | None = None,
    preset: DirectionPreset | None = None,
    reads: DirectionReads | None = None,
) -> APIRouter:
    """Return the arena's read endpoints (and the visitor call, with ``arena``).

    Parameters
    ----------
    store
        The event store holding the arena's stream.
    stream
        The arena's event stream.
    arena
        The running arena, for visitor calls; without it ``POST`` answers 503.
    preset
        The rules (for the scoring version and the sparkline length).
    reads
        The read models to serve (the site shares them with its pages).
    """
    r = reads or DirectionReads(store, stream=stream, preset=preset)
    router = APIRouter(prefix="/direction", tags=["direction"])

    def answer(build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            return build()
        except NotFound as exc:
            raise HTTPException(404, str(exc)) from None

    @router.get("")
    def index() -> dict[str, Any]:
        return r.index()

    @router.get("/rounds/current")
    def current_round() -> dict[str, Any]:
        return answer(r.current_round)

    @router.get("/rounds")
    def past_rounds(
        season: Annotated[str | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        return answer(lambda: r.rounds(season, limit))

    @router.get("/rounds/{round_id}")
    def one_round(round_id: str, season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        return answer(lambda: r.round(round_id, season))

    # ``:path``: a model name may hold ``/``; it is matched whole, so any name round-trips.
    @router.get("/models/{name:path}/log")
    def model_log(name: str, season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        return answer(lambda: r.model_log(name, season))

    @router.get("/config")
    def config(season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        return answer(lambda: r.config(season))

    @router.get("/boards")
    def boards(season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        return answer(lambda: r.boards(season))

    @router.get("/changelog")
    def changelog() -> dict[str, Any]:
        return r.changelog()

    @router.post("/rounds/current/calls", status_code=202)
    def visitor_call(call: VisitorCall) -> dict[str, Any]:
        if arena is None:
            raise HTTPException(503, "visitor calls need a running arena")
        try:
            arena.visitor_call(call.visitor, call.direction)
        except ConfigError as exc:
            raise HTTPException(409, str(exc)) from None
        return {"disclaimer": DISCLAIMER, "accepted": True, "visitor": f"visitor:{call.visitor}"}

    return router
