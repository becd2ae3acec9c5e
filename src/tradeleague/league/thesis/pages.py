"""The thesis league's pages: its seasons, a season's board, an agent's every decision.

They read the same functions as ``/api/v1/thesis`` (``league/thesis/reads.py``), so
a page and the JSON cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from tradeleague.league.thesis.reads import ThesisReads

__all__ = ["install_thesis_pages"]

Page = Callable[..., HTMLResponse]
Guarded = Callable[[Callable[[], HTMLResponse]], HTMLResponse]
Cloud = Callable[[dict[str, Any] | None, str, str, object], Markup | None]


def install_thesis_pages(
    router: APIRouter, reads: ThesisReads, page: Page, guarded: Guarded, cloud: Cloud
) -> None:
    """Add the season list, a season's board and an agent's decisions to ``router``.

    ``cloud`` draws a board's baseline cloud (``web.render.cloud``, which the
    weights and scenario boards use), from the board JSON's ``baseline_cloud``.
    """

    @router.get("/thesis", response_class=HTMLResponse)
    def thesis_index() -> HTMLResponse:
        seasons: list[Any] = reads.index()["seasons"]
        return page("thesis_index.html", title="Thesis league", seasons=seasons)

    @router.get("/thesis/{season}", response_class=HTMLResponse)
    def thesis_season(season: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            board = reads.board(season)
            return page(
                "thesis_season.html",
                title=f"Thesis league: {season}",
                board=board,
                cloud=cloud(
                    board["baseline_cloud"],
                    f"Season {season}",
                    "agent",
                    (board["luckiest_of_n"] or {}).get("expected_best_return"),
                ),
            )

        return guarded(build)

    @router.get("/thesis/{season}/agents/{agent:path}", response_class=HTMLResponse)
    def thesis_agent(season: str, agent: str) -> HTMLResponse:
        return guarded(
            lambda: page("thesis_agent.html", title=f"{agent}", a=reads.agent(season, agent))
        )
