"""The direction arena's pages: the board with the live round, a round, a model's log.

They read the same functions as ``/api/v1/direction`` (`DirectionReads`), so a
page and the JSON cannot disagree. The live round's countdown starts from the
site's clock; ``static/live.js`` polls it, and the page reads fully without it.
A model's log shows newest first, a page at a time, under a summary
(``log_page``). The board lists every arena in the store, each linked: the
served one (``--direction-stream``, or the store's own) at ``/direction``,
the others at ``/direction/arenas/{stream}``, read by the same read model
(`DirectionReads`) on their stream.
The visitors' call form and board are ``visitor_pages``'.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tradeleague.league.direction.log_page import log_page
from tradeleague.league.direction.reads import Arenas, DirectionReads
from tradeleague.league.direction.streams import found_arenas
from tradeleague.league.direction.visitor_pages import CallForm, install_visitor_pages
from tradeleague.web.errors import NotFound
from tradeleague.web.render import Pages, shown

__all__ = ["direction_pages"]


def direction_pages(
    reads: DirectionReads,
    pages: Pages,
    now: Callable[[], datetime],
    calls: CallForm | None,
    arenas: Arenas | None = None,
) -> APIRouter:
    """Return the pages under ``/direction`` (``calls``: the visitors' form, when taken).

    The served arena (``reads``) is at ``/direction``; every other arena the
    store holds is read at ``/direction/arenas/{stream}`` (its board, rounds and
    models; visitors call only the served one).
    """
    router = APIRouter(include_in_schema=False)
    page = pages.page
    others = arenas or Arenas(reads)

    def board_page(
        r: DirectionReads, here: str, request: Request, status: int, extra: dict[str, Any]
    ) -> HTMLResponse:
        seasons: list[str] = r.index()["seasons"]
        taken = calls if r is reads else None
        form = taken.context(request, **extra) if taken is not None else {}
        form["arenas"] = found_arenas(r.store)
        form["arena"] = r.stream
        form["here"] = here
        if not seasons:
            response: HTMLResponse = page(
                "direction.html", status, title=_title(r, here), board=None, live=None, **form
            )
        else:
            board = r.boards()
            config = r.config()
            try:
                live = r.current_round()
            except NotFound:
                live = None
            remaining = None
            if live is not None and live["status"] == "open":
                expiry = datetime.fromisoformat(str(live["expiry"]).replace("Z", "+00:00"))
                remaining = max(0, int((expiry - now()).total_seconds()))
            recent = r.rounds(limit=10)["rounds"]
            response = page(
                "direction.html",
                status,
                title=_title(r, here),
                board=board,
                config=config,
                live=live,
                remaining=remaining,
                recent=recent,
                **form,
            )
        if taken is not None:
            taken.tokens.set_cookie(response, request, form["csrf"])
        return response

    def round_page(r: DirectionReads, here: str, round_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            body = r.round(round_id)
            return page(
                "direction_round.html",
                title=f"Round {round_id}",
                r=body,
                here=here,
                arena=r.stream,
                replay=r.replay(),
                scoring_version=r.preset.scoring_version,
            )

        return pages.guarded(build)

    def model_page(r: DirectionReads, here: str, name: str, page_no: int) -> HTMLResponse:
        def build() -> HTMLResponse:
            log = r.model_log(name)
            config = r.config()
            board = r.boards() if r.index()["seasons"] else None
            models = board["models"] if board is not None else []
            standing = next((m for m in models if m["name"] == log["model"]["name"]), None)
            return page(
                "direction_model.html",
                title=f"Model {shown(log['model']['name'])}",
                log=log,
                standing=standing,
                shown_log=log_page(log["rows"], page_no),
                config=config,
                here=here,
                arena=r.stream,
                replay=r.replay(log["season"]),
            )

        return pages.guarded(build)

    def direction_page(request: Request, status: int, extra: dict[str, Any]) -> Response:
        return board_page(reads, "/direction", request, status, extra)

    @router.get("/direction", response_class=HTMLResponse)
    def direction_home(request: Request) -> Response:
        return direction_page(request, 200, {})

    @router.get("/direction/rounds/{round_id}", response_class=HTMLResponse)
    def direction_round(round_id: str) -> HTMLResponse:
        return round_page(reads, "/direction", round_id)

    @router.get("/direction/models/{name:path}", response_class=HTMLResponse)
    def direction_model(
        name: str, page_no: Annotated[int, Query(alias="page")] = 1
    ) -> HTMLResponse:
        return model_page(reads, "/direction", name, page_no)

    @router.get("/direction/arenas/{stream}", response_class=HTMLResponse)
    def arena_home(stream: str, request: Request) -> Response:
        if stream == reads.stream:
            return RedirectResponse("/direction", status_code=307)
        return pages.guarded(
            lambda: board_page(others.get(stream), _here(stream), request, 200, {})
        )

    @router.get("/direction/arenas/{stream}/rounds/{round_id}", response_class=HTMLResponse)
    def arena_round(stream: str, round_id: str) -> HTMLResponse:
        return pages.guarded(lambda: round_page(others.get(stream), _here(stream), round_id))

    @router.get("/direction/arenas/{stream}/models/{name:path}", response_class=HTMLResponse)
    def arena_model(
        stream: str, name: str, page_no: Annotated[int, Query(alias="page")] = 1
    ) -> HTMLResponse:
        return pages.guarded(lambda: model_page(others.get(stream), _here(stream), name, page_no))

    if calls is not None:
        install_visitor_pages(router, reads, calls, page, pages.guarded, direction_page)

    return router


def _here(stream: str) -> str:
    """Return the path of an arena that is not the served one."""
    return f"/direction/arenas/{quote(stream, safe='')}"


def _title(reads: DirectionReads, here: str) -> str:
    return "Direction arena" if here == "/direction" else f"Direction arena {reads.stream}"
