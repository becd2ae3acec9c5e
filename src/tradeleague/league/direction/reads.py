"""JSON endpoints of the direction arena (SPEC D-PUB-1..4, C-1).

A FastAPI ``APIRouter`` factory: every payload is folded from the event log
and built by ``tradeleague.formats.direction.publish``, so what is served is
exactly what the log holds, and an open round's calls do not exist in any
response (D-PUB-1). Visitors may log their own call on the open round
(D-PUB-2): the call goes to the store (``league.direction.visitors``), where
the arena's host, in this process or another, reads it; it is answered 202
with no direction in the answer, and stays out of every payload until its
round has finished.

Routes (under ``/direction``): ``GET /`` (index), ``GET /rounds/current``,
``GET /rounds`` (finished rounds, every call), ``GET /rounds/{round}``,
``GET /models/{name}/log``, ``GET /config`` (the roster, exact model ids),
Every read takes ``?arena=STREAM``: another arena in the store (`Arenas`).
``GET /boards`` (with ``race``, every model's balance round by round, and
``story``, one sentence on the leader and luck: ``league.story``),
``GET /visitors`` (the visitors' board), ``GET /changelog``,
``POST /rounds/current/calls``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from tradeleague.api.models import error_responses
from tradeleague.api.write_limits import anonymous_write, visitor_holder, with_cookies
from tradeleague.clock import Clock, WallClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import utc_iso
from tradeleague.formats.direction.board import Board, build_board, paper_values
from tradeleague.formats.direction.ledger import Ledger, SeasonView
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.publish import (
    board_payload,
    changelog_payload,
    model_log_payload,
    roster_payload,
    round_payload,
    shown,
    visitors_payload,
)
from tradeleague.formats.direction.visitors import (
    MAX_NAME_CHARS,
    MAX_RAW_NAME_CHARS,
    CallRefused,
    Refusal,
    call_round,
    calls_close_at,
)
from tradeleague.league.bodies import DatedChangesOut, answer_of
from tradeleague.league.costs import SeasonCosts
from tradeleague.league.direction.models import (
    DirectionBoardsOut,
    DirectionConfigOut,
    DirectionIndexOut,
    DirectionRoundOut,
    DirectionRoundsOut,
    ModelLogOut,
    VisitorCallOut,
    VisitorsBoardOut,
)
from tradeleague.league.direction.story import direction_story, direction_versus
from tradeleague.league.direction.streams import found_arenas
from tradeleague.league.direction.visitors import VisitorDesk
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store
from tradeleague.store.live_fold import StreamFold
from tradeleague.web.errors import NotFound

__all__ = ["Arenas", "DirectionReads", "VisitorCallBody", "direction_router", "refusal_status"]


class VisitorCallBody(BaseModel):
    """A visitor's own call on the open round (the name is normalised on receipt)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"visitor": "ada", "direction": "up"}]}
    )

    visitor: str = Field(
        min_length=1,
        max_length=MAX_RAW_NAME_CHARS,
        description=(
            "The name your call is shown under (one call per name per round): up to "
            f"{MAX_NAME_CHARS} characters once normalised (NFKC, invisible characters "
            "dropped, runs of spaces made one), letters, marks, digits, punctuation, "
            "symbols and spaces. Names in any script are read; the pattern shows the "
            "printable ASCII ones, which are read as they are."
        ),
        # the document's bound is the normalised name's: a raw name the code reads
        # up to MAX_RAW_NAME_CHARS may still be refused (invalid_name) once normalised
        json_schema_extra={"maxLength": MAX_NAME_CHARS, "pattern": r"^[ -~]*[!-~][ -~]*$"},
    )
    direction: Literal["up", "down"] = Field(
        description="Where the price is at the round's expiry against its entry price."
    )


SeasonQuery = Annotated[
    str | None, Query(description="The season's id, e.g. S1 (default: the latest season).")
]
ArenaQuery = Annotated[
    str | None,
    Query(
        max_length=200,
        description="Another arena in this store, by its stream (default: the site's own).",
    ),
]


def refusal_status(code: Refusal) -> int:
    """Return the HTTP status of a refused call: 422 for what was sent, 409 for when."""
    if code in (Refusal.INVALID_NAME, Refusal.INVALID_DIRECTION):
        return 422
    return 409


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
    prices
        The price table the boards' costs are priced with (``None``: unpriced).
    """

    def __init__(
        self,
        store: Store,
        *,
        stream: str = FORMAT,
        preset: DirectionPreset | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.store = store
        self.stream = stream
        self.preset = preset or DirectionPreset()
        self.costs = SeasonCosts(prices)
        # the arena's ledger, folded once and caught up from the last seq on each read
        self._ledger: StreamFold[Ledger] = StreamFold(
            stream, Ledger, lambda ledger, stored: ledger.apply(stored.event)
        )

    @contextmanager
    def ledger(self) -> Iterator[Ledger]:
        """Yield the arena's ledger caught up with the log, locked while the caller reads it."""
        with self._ledger.current(self.store) as ledger:
            yield ledger

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
                "/direction/visitors",
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
        """Return one round, with the season's previous and next round ids (``None`` at an end)."""
        with self._view(season) as view:
            found = view.rounds.get(round_id)
            if found is None:
                raise NotFound(f"no round {round_id} in season {view.season}")
            ids = list(view.rounds)
            at = ids.index(round_id)
            body = round_payload(view, found)
            body["previous"] = ids[at - 1] if at > 0 else None
            body["next"] = ids[at + 1] if at + 1 < len(ids) else None
            return body

    def model_log(self, name: str, season: str | None = None) -> dict[str, Any]:
        """Return a model's full log (D-PUB-3)."""
        with self._view(season) as view:
            entrant = next((e for e in view.roster if e.name == name), None)
            entrant = entrant or next((e for e in view.shown_visitors() if e.name == name), None)
            if entrant is None:
                raise NotFound(f"no model {name} in season {view.season}")
            body = model_log_payload(view, entrant)
            body["versus"] = direction_versus(view, entrant)
            costs = self._costs(view, self._board(view))
            body["cost"] = costs["agents"].get(name)
            body["pricing"] = {k: costs[k] for k in ("pricing_version", "priced", "unit")}
            return body

    def config(self, season: str | None = None) -> dict[str, Any]:
        """Return the roster with exact model ids."""
        with self._view(season) as view:
            return roster_payload(view)

    def _board(self, view: SeasonView) -> Board:
        p = self.preset
        return build_board(view, scoring_version=p.scoring_version, sparkline=p.sparkline)

    def _costs(self, view: SeasonView, board: Board) -> dict[str, Any]:
        """Return the season's ``costs``, as the replay's REPORT.json holds them."""
        values = paper_values(board)
        return self.costs.payload(self.store, self.stream, values, of_season=view.season)

    def boards(self, season: str | None = None) -> dict[str, Any]:
        """Return the boards with the luck lines and what each model's calls cost."""
        with self._view(season) as view:
            board = self._board(view)
            body = board_payload(board)
            body.update(direction_story(view, board))
            body["replay"] = season_replay(view)
            body["costs"] = self._costs(view, board)
            return body

    def replay(self, season: str | None = None) -> bool | None:
        """Return whether the season is a replay over past prices (``None``: not recorded)."""
        with self._view(season) as view:
            return season_replay(view)

    def visitors(self, season: str | None = None) -> dict[str, Any]:
        """Return the visitors' board: scored as the models are, ranked apart (D-PUB-2)."""
        with self._view(season) as view:
            return visitors_payload(self._board(view))

    def changelog(self) -> dict[str, Any]:
        """Return the changes that affect comparability (C-3)."""
        with self._ledger.current(self.store) as ledger:
            return changelog_payload(ledger)


class Arenas:
    """The read models of every arena in a store, one per stream, each made on its first read.

    ``served`` is the site's own arena; another is read with its rules and prices.
    """

    def __init__(self, served: DirectionReads) -> None:
        self.served = served
        self.reads: dict[str, DirectionReads] = {served.stream: served}
        self.lock = threading.Lock()

    def get(self, stream: str | None) -> DirectionReads:
        """Return the arena on ``stream`` (``None``: the served one; raises `NotFound`)."""
        if stream is None:
            return self.served
        with self.lock:
            found = self.reads.get(stream)
            if found is not None:
                return found
            if stream not in found_arenas(self.served.store):
                raise NotFound(f"no arena {stream} in this store")
            made = DirectionReads(
                self.served.store,
                stream=stream,
                preset=self.served.preset,
                prices=self.served.costs.prices,
            )
            self.reads[stream] = made
            return made


def season_replay(view: SeasonView) -> bool | None:
    """Return whether a season was replayed (its start says; ``None`` for a start that does not)."""
    flag = view.started.get("replay")
    return flag if isinstance(flag, bool) else None


def direction_router(
    store: Store,
    *,
    stream: str = FORMAT,
    preset: DirectionPreset | None = None,
    reads: DirectionReads | None = None,
    desk: VisitorDesk | None = None,
    clock: Clock | None = None,
    arenas: Arenas | None = None,
) -> APIRouter:
    """Return the arena's read endpoints and the visitors' call.

    Parameters
    ----------
    store
        The event store holding the arena's stream.
    stream
        The arena's event stream.
    preset
        The rules (the scoring version, the sparkline length, the round grid
        and late cutoff a visitor's call is judged by).
    reads
        The read models to serve (the site shares them with its pages).
    desk
        Where visitors' calls are taken (the site shares it with its form);
        by default one on ``store`` and ``clock``.
    clock
        A visitor's call's moment (default: the wall clock).
    arenas
        The store's other arenas, each read by ``?arena=STREAM`` (the site
        shares them with its pages); by default, found on ``reads``' store.
    """
    r = reads or DirectionReads(store, stream=stream, preset=preset)
    visitors = desk or VisitorDesk(
        store, stream=r.stream, preset=r.preset, clock=clock or WallClock(), ledger=r.ledger
    )
    router = APIRouter(prefix="/direction", tags=["direction"], responses=error_responses(404))
    arenas = arenas or Arenas(r)

    def answer(build: Callable[[], dict[str, Any]]) -> Response:
        # The JSON text is made here, in the route's worker thread: a returned dict
        # would be encoded on the event loop's thread (a 50-round page took ~27 ms,
        # and every request, `/healthz` included, waited behind it).
        try:
            return JSONResponse(build())
        except NotFound as exc:
            raise HTTPException(404, str(exc)) from None

    @router.get("", responses=answer_of(DirectionIndexOut))
    def index(arena: ArenaQuery = None) -> Response:
        """Say what the direction arena holds: its seasons and the links to read them.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).index())

    @router.get("/rounds/current", responses=answer_of(DirectionRoundOut))
    def current_round(arena: ArenaQuery = None) -> Response:
        """Return the round open now: its symbol, open time, countdown and calls so far.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).current_round())

    @router.get("/rounds", responses=answer_of(DirectionRoundsOut))
    def past_rounds(
        season: SeasonQuery = None,
        limit: Annotated[int, Query(ge=1, le=500, description="At most this many rounds.")] = 50,
        arena: ArenaQuery = None,
    ) -> Response:
        """List past rounds of a season (the latest when none is given), newest first.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).rounds(season, limit))

    @router.get("/rounds/{round_id}", responses=answer_of(DirectionRoundOut))
    def one_round(
        round_id: Annotated[str, Path(description="The round's id (its open time, UTC).")],
        season: SeasonQuery = None,
        arena: ArenaQuery = None,
    ) -> Response:
        """Return one round: the models' calls, their reasons and how each was scored.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).round(round_id, season))

    # ``:path``: a model name may hold ``/``; it is matched whole, so any name round-trips.
    @router.get("/models/{name:path}/log", responses=answer_of(ModelLogOut))
    def model_log(
        name: Annotated[str, Path(description="The model's name on the boards.")],
        season: SeasonQuery = None,
        arena: ArenaQuery = None,
    ) -> Response:
        """Return a model's log in a season: every call, answer and fault, in order.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).model_log(name, season))

    @router.get("/config", responses=answer_of(DirectionConfigOut))
    def config(season: SeasonQuery = None, arena: ArenaQuery = None) -> Response:
        """Return a season's configuration: models, symbol, payout and timing.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).config(season))

    @router.get("/boards", responses=answer_of(DirectionBoardsOut))
    def boards(season: SeasonQuery = None, arena: ArenaQuery = None) -> Response:
        """Return a season's boards: the models ranked by hit rate and payout, with the luck test.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).boards(season))

    @router.get("/visitors", responses=answer_of(VisitorsBoardOut))
    def visitors_board(season: SeasonQuery = None, arena: ArenaQuery = None) -> Response:
        """Return the visitors' board: their calls scored as the models' are, ranked apart.

        A call shows once its round has finished; until then it is in no payload.
        """
        return answer(lambda: arenas.get(arena).visitors(season))

    @router.get("/changelog", responses=answer_of(DatedChangesOut))
    def changelog(arena: ArenaQuery = None) -> Response:
        """List the dated changes that affect comparability of the arena's seasons.

        Public: no key, no quota.
        """
        return answer(lambda: arenas.get(arena).changelog())

    @router.post(
        "/rounds/current/calls",
        status_code=202,
        summary="Log your own call on the open round",
        responses={**answer_of(VisitorCallOut, 202), **error_responses(409, 422, 429)},
        dependencies=[Depends(anonymous_write)],
    )
    def visitor_call(call: VisitorCallBody, request: Request, response: Response) -> Any:
        """Log your own call, up or down, on the round open now, under a name of your choosing.

        Calls close 30 seconds before the round expires, as the models' answers
        do; one call per name per round. The call is hidden until the round
        expires, then scored like a model's and ranked on the visitors' board.
        A name belongs to the visitor who first called under it: send back the
        visitor cookie (``tl_visitor``) the first call set to call under it again.
        """
        try:
            taken = visitors.call(call.visitor, call.direction, visitor_holder(request, response))
        except CallRefused as exc:
            body = {
                "error": {"code": exc.code.value, "message": exc.message},
                "disclaimer": DISCLAIMER,
            }
            refused = JSONResponse(body, status_code=refusal_status(exc.code))
            return with_cookies(refused, response)
        times = call_round(taken.at, visitors.preset)
        return {
            "disclaimer": DISCLAIMER,
            "accepted": True,
            "round": taken.round,
            "visitor": shown(taken.account),
            "calls_close_at": utc_iso(calls_close_at(times, visitors.preset)),
            "hidden_until": utc_iso(times.expiry),
        }

    return router
