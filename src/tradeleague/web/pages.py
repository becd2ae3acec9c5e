"""The public HTML site: every board, agent, round and rule as server-rendered pages.

Each page is rendered from the very read-model functions the JSON API serves
(`WeightsReads`, `DirectionReads`, ``league.scenario.reads``), never a second computation,
so a page cannot disagree with ``/api/v1``. Jinja2 templates escape every
value; text that the read models already made safe (HTML-escaped model and
user text) is unescaped once before the template escapes it again, so it
shows exactly as written, escaped once. Charts are inline SVG from
``web.charts``, each with its numbers in a table. The only script is the live
round's countdown and poll (``static/live.js``); every page reads fully
without it, and the one form anyone may post (a visitor's call,
``visitor_pages``) works without it. Unknown ids answer a 404 page.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from tradeleague import __version__
from tradeleague.clock import Clock, WallClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ServiceError
from tradeleague.formats.scenario import METRICS
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.reads import (
    changelog_payload,
    leaderboard_payload,
    run_payload,
    scenarios_payload,
)
from tradeleague.web.account_pages import install_account_pages
from tradeleague.web.charts import cloud_chart, line_chart, sparkline
from tradeleague.web.direction_api import DirectionReads
from tradeleague.web.errors import NotFound
from tradeleague.web.methodology import FORMATS, methodology
from tradeleague.web.thesis_api import ThesisReads
from tradeleague.web.thesis_pages import install_thesis_pages
from tradeleague.web.visitor_pages import CallForm, install_visitor_pages
from tradeleague.web.weights_api import WeightsReads

__all__ = ["STATIC_DIR", "install_pages", "shown", "usd"]

STATIC_DIR: Final = Path(__file__).with_name("static")


def shown(text: object) -> str:
    """Return read-model text (already HTML-escaped) as plain text for the template to escape.

    The read models escape model and user text once for JSON; unescaping it
    here means the template's own escaping is the only one the page shows.
    """
    return "" if text is None else html.unescape(str(text))


def usd(text: object) -> str:
    """Return a money amount (decimal text) with at least two decimals, never fewer digits.

    ``"100000"`` reads ``100000.00``; ``"99987.75728"`` stays as it is, so the
    page shows the JSON's exact value, to the cent at least.
    """
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        return shown(text)
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent > -2:
        value = value.quantize(Decimal("0.01"))
    return format(value, "f")


def _number(text: object) -> float:
    try:
        return float(str(text))
    except ValueError:
        return 0.0


def _cloud(cloud: dict[str, Any] | None, board: str, marked: str) -> Markup | None:
    """Return a board's baseline cloud as SVG (its numbers are in the page's tables).

    ``board`` names the board (``Pro division``), ``marked`` what each line is
    (``agent``, ``run``); the weights tables, the scenario board and the thesis
    board share it.
    """
    if cloud is None:
        return None
    bins = [(float(b["low"]), float(b["high"]), int(b["agents"])) for b in cloud["bins"]]
    marks = [(shown(m["name"]), float(m["season_return"])) for m in cloud["marks"]]
    label = (
        f"{board}: final returns of {cloud['agents']} agents with no skill, "
        f"each {marked}'s return marked"
    )
    return Markup(cloud_chart(bins, marks, label))  # noqa: S704 - numbers and escaped text


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("tradeleague.web", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["shown"] = shown
    env.filters["usd"] = usd
    env.filters["seg"] = lambda text: quote(shown(text), safe="")
    env.globals["line_chart"] = lambda values, label: Markup(  # noqa: S704 - numbers only
        line_chart([_number(v) for v in values], shown(label))
    )
    env.globals["sparkline"] = lambda values, label: Markup(  # noqa: S704 - numbers only
        sparkline([_number(v) for v in values], shown(label))
    )
    env.globals["DISCLAIMER"] = DISCLAIMER
    env.globals["version"] = __version__
    return env


def install_pages(
    app: FastAPI,
    *,
    weights: WeightsReads,
    direction: DirectionReads,
    service: ScenarioService,
    clock: Clock | None = None,
    thesis: ThesisReads | None = None,
    calls: CallForm | None = None,
) -> None:
    """Add the site's pages, its stylesheet and its one script to ``app``.

    Parameters
    ----------
    app
        The site's app (the JSON API is already mounted on it).
    weights, direction
        The read models the JSON routes serve.
    service
        The scenario service (leaderboards and published runs).
    clock
        The time the live round's countdown starts from (default: the wall clock).
    thesis
        The thesis league's read models (its pages are served when given).
    calls
        The visitors' call form and board (served when given).
    """
    env = _environment()
    now: Callable[[], datetime] = (clock or WallClock()).now
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    router = APIRouter(include_in_schema=False)

    def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
        body = env.get_template(name).render(**context)
        return HTMLResponse(body, status_code=status)

    def missing(what: str) -> HTMLResponse:
        # one sentence, whether the reason came as "no season" or "There is no run 'x'."
        what = what.strip().rstrip(".")
        return page("404.html", 404, title="Not found", what=f"{what[:1].upper()}{what[1:]}.")

    def guarded(build: Callable[[], HTMLResponse]) -> HTMLResponse:
        try:
            return build()
        except NotFound as exc:
            return missing(str(exc))
        except ServiceError as exc:
            if exc.status == 404:
                return missing(exc.message)
            raise

    def weights_seasons() -> list[str]:
        seasons: list[str] = weights.index()["seasons"]
        return seasons

    def direction_seasons() -> list[str]:
        seasons: list[str] = direction.index()["seasons"]
        return seasons

    @router.get("/", response_class=HTMLResponse)
    def home() -> HTMLResponse:
        return page(
            "index.html",
            title="tradeleague",
            weights_seasons=weights_seasons(),
            direction_seasons=direction_seasons(),
            scenarios=scenarios_payload(service)["scenarios"],
            thesis_seasons=None if thesis is None else thesis.index()["seasons"],
        )

    @router.get("/weights", response_class=HTMLResponse)
    def weights_index() -> HTMLResponse:
        return page("weights_index.html", title="Weights league", seasons=weights_seasons())

    @router.get("/weights/{season_id}", response_class=HTMLResponse)
    def weights_season(season_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            season = weights.season(season_id)
            tables = [weights.table(season_id, d) for d in ("pro", "open")]
            return page(
                "weights_season.html",
                title=f"Weights league: {season_id}",
                season=season,
                tables=tables,
                clouds={
                    t["division"]: _cloud(
                        t["baseline_cloud"], f"{t['division'].capitalize()} division", "agent"
                    )
                    for t in tables
                },
            )

        return guarded(build)

    @router.get("/weights/{season_id}/market", response_class=HTMLResponse)
    def weights_market(season_id: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            season = weights.season(season_id)
            market = weights.market(season_id)
            return page("weights_market.html", title="Market status", season=season, m=market)

        return guarded(build)

    @router.get("/weights/{season_id}/agents/{agent:path}", response_class=HTMLResponse)
    def weights_agent(season_id: str, agent: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            season = weights.season(season_id)
            body = weights.agent(season_id, agent)
            return page(
                "weights_agent.html",
                title=f"Agent {shown(body['agent']['name'])}",
                season=season,
                a=body,
            )

        return guarded(build)

    def direction_page(request: Request, status: int, extra: dict[str, Any]) -> Response:
        seasons = direction_seasons()
        form = calls.context(request, **extra) if calls is not None else {}
        if not seasons:
            response: Response = page(
                "direction.html", status, title="Direction arena", board=None, live=None, **form
            )
        else:
            board = direction.boards()
            config = direction.config()
            try:
                live = direction.current_round()
            except NotFound:
                live = None
            remaining = None
            if live is not None and live["status"] == "open":
                expiry = datetime.fromisoformat(str(live["expiry"]).replace("Z", "+00:00"))
                remaining = max(0, int((expiry - now()).total_seconds()))
            recent = direction.rounds(limit=10)["rounds"]
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
            body = direction.round(round_id)
            return page(
                "direction_round.html",
                title=f"Round {round_id}",
                r=body,
                scoring_version=direction.preset.scoring_version,
            )

        return guarded(build)

    @router.get("/direction/models/{name:path}", response_class=HTMLResponse)
    def direction_model(name: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            log = direction.model_log(name)
            config = direction.config()
            return page(
                "direction_model.html",
                title=f"Model {shown(log['model']['name'])}",
                log=log,
                config=config,
            )

        return guarded(build)

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
            return page(
                "scenario_board.html",
                title=f"Leaderboard: {scenario_id}",
                board=board,
                metrics=list(METRICS),
                cloud=_cloud(board["baseline_cloud"], f"Scenario {scenario_id}", "run"),
            )

        return guarded(build)

    @router.get("/runs/{run_id}", response_class=HTMLResponse)
    def scenario_run(run_id: str) -> HTMLResponse:
        return guarded(
            lambda: page(
                "scenario_run.html", title=f"Run {run_id}", run=run_payload(service, run_id)
            )
        )

    if calls is not None:
        install_visitor_pages(router, direction, calls, page, guarded, direction_page)

    if thesis is not None:
        install_thesis_pages(router, thesis, page, guarded, _cloud)

    @router.get("/methodology/{name}", response_class=HTMLResponse)
    def methodology_page(name: str, season: str | None = None) -> HTMLResponse:
        if name not in FORMATS:
            return missing(f"no format {name!r}")
        m = methodology(
            name,
            weights=weights.preset,
            direction=direction.preset,
            scenario=service.preset,
            thesis=thesis.preset if thesis is not None else None,
        )
        changes: list[dict[str, str]] = []
        if name == "direction":
            changes = direction.changelog()["changes"]
        elif name == "weights":
            changes = weights.changelog()["changes"]
        elif name == "scenario":
            changes = changelog_payload(service)["changes"]
        elif name == "thesis" and thesis is not None:
            changes = thesis.changelog()["changes"]
        universe: dict[str, Any] | None = None
        if name == "weights":  # the latest season's universe, or ?season='s
            try:
                universe = weights.universe(season)
            except NotFound as exc:
                if season is not None:
                    return missing(str(exc))
        return page(
            "methodology.html",
            title=f"Methodology: {m.title}",
            m=m,
            changes=changes,
            universe=universe,
            seasons=weights_seasons() if name == "weights" else [],
        )

    app.include_router(router)
    install_account_pages(app, env)
