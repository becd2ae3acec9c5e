"""The scenario benchmark on the site: its pages, its methodology, its line in ``/api/v1``.

The format's ``site`` part (``web.plugin.SitePart``). The benchmark's JSON
routes are the REST app's own (``api.app``), served on the same service; its
pages (the scenarios, a leaderboard, a published run) read the same payloads
(``api.reads``), so a page and the JSON cannot disagree. A scenario or run the
service does not know answers the site's 404 page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final
from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from tradeleague.api.app import LanedApp
from tradeleague.formats.scenario import METRICS, ServicePreset
from tradeleague.formats.scenario.leaderboard import UnrankedReason
from tradeleague.formats.scenario.methodology import SCENARIO_NOTES
from tradeleague.formats.scenario.run import RunStatus
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.plugin import FORMAT
from tradeleague.league.scenario.reads import (
    changelog_payload,
    leaderboard_payload,
    run_payload,
    scenarios_payload,
)
from tradeleague.league.scenario.routes import install_scenario_routes
from tradeleague.league.story import top_rows
from tradeleague.web.methodology import Methodology, methodology
from tradeleague.web.plugin import MethodologyPage, Site
from tradeleague.web.render import Pages, cloud

__all__ = ["SITE", "ScenarioSite", "scenario_methodology", "scenario_pages"]


def scenario_methodology(preset: ServicePreset | None = None) -> Methodology:
    """Return the benchmark's methodology built from ``preset`` (default: the seed's)."""
    groups = {"Run states": RunStatus, "Unranked reasons": UnrankedReason}
    return methodology(FORMAT.key, FORMAT.title, preset or ServicePreset(), groups, SCENARIO_NOTES)


def scenario_pages(service: ScenarioService, pages: Pages) -> APIRouter:
    """Return ``/scenarios``, a scenario's leaderboard and ``/runs/{run}``."""
    router = APIRouter(include_in_schema=False)
    page = pages.page

    guarded = pages.guarded  # a scenario_not_found is the 404 page

    @router.get("/scenarios", response_class=HTMLResponse)
    def scenario_index() -> HTMLResponse:
        return page(
            "scenario_index.html",
            title="Scenario benchmark",
            scenarios=scenarios_payload(service)["scenarios"],
        )

    @router.get("/scenarios/{scenario_id}", response_class=HTMLResponse)
    def scenario_board(scenario_id: str, metric: str = "return") -> HTMLResponse:
        def build() -> HTMLResponse:
            chosen = metric if metric in METRICS else "return"
            board = leaderboard_payload(service, scenario_id, chosen)
            name = f"{board['scenario']['name']} (version {board['scenario']['version']})"
            return page(
                "scenario_board.html",
                title=f"Leaderboard: {name}",
                board=board,
                metrics=list(METRICS),
                cloud=cloud(
                    board["baseline_cloud"],
                    f"Scenario {name}",
                    "run",
                    board["significance"]["luckiest_of_n"].get("expected_best"),
                ),
            )

        return guarded(build)

    @router.get("/runs/{run_id}", response_class=HTMLResponse)
    def scenario_run(run_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            run = run_payload(service, run_id)
            scenario = service.scenario(str(run["scenario_id"])).view()  # its name, not its id
            return page("scenario_run.html", title=f"Run {run_id}", run=run, scenario=scenario)

        return guarded(build)

    return router


class ScenarioSite:
    """The scenario benchmark installed on one site (``web.plugin.FormatSite``)."""

    def __init__(self, service: ScenarioService, pages: Pages) -> None:
        self.service = service
        self.pages = pages

    def home(self) -> Markup:
        """Return the home page's lines: what the benchmark is, its scenarios."""
        scenarios = scenarios_payload(self.service)["scenarios"]
        played = [s for s in scenarios if s["published_runs"]]
        board = leaderboard_payload(self.service, played[-1]["id"], "return") if played else None
        top = (
            []
            if board is None
            else top_rows(
                board["entries"],
                lambda e: e["return"] * 100,
                lambda e: f"/runs/{quote(e['run_id'], safe='')}",
                lambda e: e["account"] or e["run_id"],
            )
        )
        return self.pages.fragment("scenario_home.html", scenarios=scenarios, board=board, top=top)

    def methodology(self, season: str | None) -> MethodologyPage:
        """Return the benchmark's methodology (``season`` is not read)."""
        return MethodologyPage(
            methodology=scenario_methodology(self.service.preset),
            no_changes="No scenario is published yet",
        )

    def changelog(self) -> Sequence[Mapping[str, str]]:
        """Return the published scenarios' changes that affect comparability, dated (C-3)."""
        changes: list[dict[str, str]] = changelog_payload(self.service)["changes"]
        return changes

    def listing(self) -> object:
        """Return the leaderboards' and the changelog's paths."""
        return {
            "scenarios": "/api/v1/leaderboard/scenarios",
            "changelog": "/api/v1/scenario/changelog",
        }


class _Site:
    """The scenario benchmark's ``site`` part."""

    templates: Path | None = Path(__file__).with_name("templates")
    settings: frozenset[str] = frozenset()

    def install(self, site: Site) -> ScenarioSite:
        """Add the benchmark's REST routes (with the bare step's lane) and its pages to the site."""
        service = site.service
        if not isinstance(service, ScenarioService):
            raise TypeError("the scenario benchmark's pages need the site's ScenarioService")
        if not isinstance(site.app, LanedApp):
            raise TypeError("the scenario benchmark's routes need the site's LanedApp")
        install_scenario_routes(site.app, service)
        site.app.include_router(scenario_pages(service, site.pages))
        return ScenarioSite(service, site.pages)


SITE: Final = _Site()
"""The scenario benchmark's ``site`` part."""
