"""The weights league's pages: its seasons, a season's tables, the market, an agent.

They read the same functions as ``/api/v1/weights`` (`WeightsReads`), so a
page and the JSON cannot disagree. Unknown ids answer the site's 404 page.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from tradeleague.league.weights.reads import WeightsReads
from tradeleague.web.render import Pages, cloud, shown

__all__ = ["weights_pages"]


def weights_pages(reads: WeightsReads, pages: Pages) -> APIRouter:
    """Return the pages under ``/weights``."""
    router = APIRouter(include_in_schema=False)

    @router.get("/weights", response_class=HTMLResponse)
    def weights_index() -> HTMLResponse:
        seasons: list[str] = reads.index()["seasons"]
        return pages.page("weights_index.html", title="Weights league", seasons=seasons)

    @router.get("/weights/{season_id}", response_class=HTMLResponse)
    def weights_season(season_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            season = reads.season(season_id)
            tables = [reads.table(season_id, d) for d in ("pro", "open")]
            return pages.page(
                "weights_season.html",
                title=f"Weights league: {season_id}",
                season=season,
                tables=tables,
                clouds={
                    t["division"]: cloud(
                        t["baseline_cloud"],
                        f"{t['division'].capitalize()} division",
                        "agent",
                        t["significance"]["luckiest_of_n"].get("expected_best"),
                    )
                    for t in tables
                },
            )

        return pages.guarded(build)

    @router.get("/weights/{season_id}/market", response_class=HTMLResponse)
    def weights_market(season_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            season = reads.season(season_id)
            market = reads.market(season_id)
            return pages.page("weights_market.html", title="Market status", season=season, m=market)

        return pages.guarded(build)

    @router.get("/weights/{season_id}/agents/{agent:path}", response_class=HTMLResponse)
    def weights_agent(season_id: str, agent: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            season = reads.season(season_id)
            body = reads.agent(season_id, agent)
            return pages.page(
                "weights_agent.html",
                title=f"Agent {shown(body['agent']['name'])}",
                season=season,
                a=body,
            )

        return pages.guarded(build)

    return router
