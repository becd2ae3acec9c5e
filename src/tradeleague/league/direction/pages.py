"""The direction arena's pages: the board with the live round, a round, a model's log.

They read the same functions as ``/api/v1/direction`` (`DirectionReads`), so a
page and the JSON cannot disagree. The live round's countdown starts from the
site's clock; ``static/live.js`` polls it, and the page reads fully without it.
A model's log shows newest first, a page at a time, under a summary
(``log_page``). The board lists every arena in the store, the one shown marked.
The visitors' call form and board are ``visitor_pages``'.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from tradeleague.league.direction.log_page import log_page
from tradeleague.league.direction.reads import DirectionReads
from tradeleague.league.direction.serving import found_arenas
from tradeleague.league.direction.visitor_pages import CallForm, install_visitor_pages
from tradeleague.web.errors import NotFound
from tradeleague.web.render import Pages, shown

__all__ = ["direction_pages"]


def direction_pages(
    reads: DirectionReads, pages: Pages, now: Callable[[], datetime], calls: CallForm | None
) -> APIRouter:
    """Return the pages under ``/direction`` (``calls``: the visitors' form, when taken)."""
    router = APIRouter(include_in_schema=False)
    page = pages.page

    def direction_page(request: Request, status: int, extra: dict[str, Any]) -> Response:
        seasons: list[str] = reads.index()["seasons"]
        form = calls.context(request, **extra) if calls is not None else {}
        form["arenas"] = found_arenas(reads.store)
        form["arena"] = reads.stream
        if not seasons:
            response: Response = page(
                "direction.html", status, title="Direction arena", board=None, live=None, **form
            )
        else:
            board = reads.boards()
            config = reads.config()
            try:
                live = reads.current_round()
            except NotFound:
                live = None
            remaining = None
            if live is not None and live["status"] == "open":
                expiry = datetime.fromisoformat(str(live["expiry"]).replace("Z", "+00:00"))
                remaining = max(0, int((expiry - now()).total_seconds()))
            recent = reads.rounds(limit=10)["rounds"]
            response = page(
                "direction.html",
                status,
                title="Direction arena",
                board=board,
                config=config,
                live=live,
                remaining=remaining,
                recent=recent,
                **form,
            )
        if calls is not None:
            calls.tokens.set_cookie(response, request, form["csrf"])
        return response

    @router.get("/direction", response_class=HTMLResponse)
    def direction_home(request: Request) -> Response:
        return direction_page(request, 200, {})

    @router.get("/direction/rounds/{round_id}", response_class=HTMLResponse)
    def direction_round(round_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            body = reads.round(round_id)
            return page(
                "direction_round.html",
                title=f"Round {round_id}",
                r=body,
                scoring_version=reads.preset.scoring_version,
            )

        return pages.guarded(build)

    @router.get("/direction/models/{name:path}", response_class=HTMLResponse)
    def direction_model(
        name: str, page_no: Annotated[int, Query(alias="page")] = 1
    ) -> HTMLResponse:
        def build() -> HTMLResponse:
            log = reads.model_log(name)
            config = reads.config()
            models = reads.boards()["models"] if reads.index()["seasons"] else []
            standing = next((m for m in models if m["name"] == log["model"]["name"]), None)
            return page(
                "direction_model.html",
                title=f"Model {shown(log['model']['name'])}",
                log=log,
                standing=standing,
                shown_log=log_page(log["rows"], page_no),
                config=config,
            )

        return pages.guarded(build)

    if calls is not None:
        install_visitor_pages(router, reads, calls, page, pages.guarded, direction_page)

    return router
