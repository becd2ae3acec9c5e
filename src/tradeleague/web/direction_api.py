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
from tradeleague.league.direction.replay import load_ledger
from tradeleague.store import Store

__all__ = ["VisitorCall", "direction_router"]


class VisitorCall(BaseModel):
    """A visitor's own call on the open round."""

    model_config = ConfigDict(extra="forbid")

    visitor: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    direction: Literal["up", "down"]


def direction_router(
    store: Store,
    *,
    stream: str = FORMAT,
    arena: DirectionArena | None = None,
    preset: DirectionPreset | None = None,
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
    """
    rules = preset or DirectionPreset()
    router = APIRouter(prefix="/direction", tags=["direction"])

    def season_of(ledger: Ledger, season: str | None) -> SeasonView:
        view = ledger.seasons.get(season) if season else ledger.current
        if view is None:
            raise HTTPException(404, f"no season {season or ''}".strip())
        return view

    @router.get("")
    def index() -> dict[str, Any]:
        ledger = load_ledger(store, stream)
        return {
            "disclaimer": DISCLAIMER,
            "format": FORMAT,
            "seasons": list(ledger.seasons),
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

    @router.get("/rounds/current")
    def current_round() -> dict[str, Any]:
        season = season_of(load_ledger(store, stream), None)
        rounds = list(season.rounds.values())
        if not rounds:
            raise HTTPException(404, "no round yet")
        return round_payload(season, rounds[-1])

    @router.get("/rounds")
    def past_rounds(
        season: Annotated[str | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        view = season_of(load_ledger(store, stream), season)
        finished = view.finished_rounds()[-limit:]
        return {
            "disclaimer": DISCLAIMER,
            "season": view.season,
            "rounds": [round_payload(view, r) for r in reversed(finished)],
        }

    @router.get("/rounds/{round_id}")
    def one_round(round_id: str, season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        view = season_of(load_ledger(store, stream), season)
        found = view.rounds.get(round_id)
        if found is None:
            raise HTTPException(404, f"no round {round_id} in season {view.season}")
        return round_payload(view, found)

    @router.get("/models/{name}/log")
    def model_log(name: str, season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        view = season_of(load_ledger(store, stream), season)
        entrant = next((e for e in view.roster if e.name == name), None) or view.visitors.get(name)
        if entrant is None:
            raise HTTPException(404, f"no model {name} in season {view.season}")
        return model_log_payload(view, entrant)

    @router.get("/config")
    def config(season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        return roster_payload(season_of(load_ledger(store, stream), season))

    @router.get("/boards")
    def boards(season: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        view = season_of(load_ledger(store, stream), season)
        board = build_board(view, scoring_version=rules.scoring_version, sparkline=rules.sparkline)
        return board_payload(board)

    @router.get("/changelog")
    def changelog() -> dict[str, Any]:
        return changelog_payload(load_ledger(store, stream))

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
