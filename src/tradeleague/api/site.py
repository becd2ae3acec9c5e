"""The whole public site as one ASGI app: every format's API beside the scenario service.

``tradeleague serve`` runs this. The scenario benchmark's agent loop and
leaderboard, the weights league's read API (``/api/v1/weights``) and the
direction arena's endpoints (``/api/v1/direction``) share one store; the root
``/api/v1`` says what is where, with the disclaimer (C-1). Visitors' calls on
the arena (JSON route and page form alike, one `VisitorDesk`) are written to
that store, where the host playing the arena reads them.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from starlette.routing import Route

from tradeleague import DISCLAIMER, __version__
from tradeleague.api.account.routes import install_accounts
from tradeleague.api.account.setup import AccountSettings, build_accounts
from tradeleague.clock import Clock, WallClock
from tradeleague.disclosure import LIMITS
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.weights import WeightsPreset
from tradeleague.host.http import metrics_route
from tradeleague.host.metrics import Metrics
from tradeleague.league.direction.visitors import VisitorDesk
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.mcp_tools import ScenarioMcp as HostedMcp
from tradeleague.league.scenario.routes import create_app
from tradeleague.mcp.hosted import MCP_PATH
from tradeleague.web.direction_api import DirectionReads, direction_router
from tradeleague.web.form_csrf import FormTokens
from tradeleague.web.pages import install_pages
from tradeleague.web.thesis_api import ThesisReads, thesis_router
from tradeleague.web.visitor_pages import CallForm
from tradeleague.web.weights_api import WeightsReads, weights_router

__all__ = ["create_site"]


def create_site(
    service: ScenarioService,
    *,
    direction_stream: str = "direction",
    weights_preset: WeightsPreset | None = None,
    direction_preset: DirectionPreset | None = None,
    clock: Clock | None = None,
    accounts: AccountSettings | None = None,
) -> FastAPI:
    """Return the scenario app with the weights and direction read APIs and the pages.

    Parameters
    ----------
    service
        The scenario service; its store holds every format's events.
    direction_stream
        The direction arena's event stream.
    weights_preset, direction_preset
        The rules the formats run with (their methodology pages show them).
    clock
        Season status, the live round's countdown and the moment of a
        visitor's call (default: the wall clock).
    accounts
        Sign-in and owners' settings (default: the request's host, chain 1,
        the running season, master keys from the environment).
    """
    app = create_app(service)
    store = service.store
    weights = WeightsReads(
        lambda: contextlib.nullcontext(store), clock=clock, preset=weights_preset
    )
    direction = DirectionReads(store, stream=direction_stream, preset=direction_preset)
    desk = VisitorDesk(
        store,
        stream=direction.stream,
        preset=direction.preset,
        clock=clock or WallClock(),
        ledger=direction.ledger,
    )
    app.include_router(weights_router(reads=weights))
    app.include_router(direction_router(store, reads=direction, desk=desk), prefix="/api/v1")
    install_accounts(app, build_accounts(service, accounts))
    _mount_mcp(app, service)
    thesis = ThesisReads(store)
    app.include_router(thesis_router(thesis))
    install_pages(
        app,
        weights=weights,
        direction=direction,
        service=service,
        clock=clock,
        thesis=thesis,
        calls=CallForm(desk, FormTokens()),
    )
    app.router.routes.append(metrics_route(Metrics()))  # Prometheus text, as the host serves

    @app.get("/api/v1", tags=["public"])
    def root() -> dict[str, object]:
        """Say what this server offers, and that it is paper trading only.

        Every path outside ``templates`` answers 200 to a plain GET; the
        templates need an id filled in or an API key.
        """
        return {
            "disclaimer": DISCLAIMER,
            "version": __version__,
            "formats": {
                "scenario": {
                    "scenarios": "/api/v1/leaderboard/scenarios",
                    "changelog": "/api/v1/scenario/changelog",
                },
                "weights": "/api/v1/weights",
                "direction": "/api/v1/direction",
                "thesis": "/api/v1/thesis",
            },
            "limits": "/api/v1/limits",
            "docs": "/docs",
            "templates": {
                "leaderboard": "/api/v1/leaderboard?scenario={scenario_id}&metric=return",
                "runs": "GET or POST /api/v1/runs with the X-API-Key header",
                "account": "GET /api/v1/account signed in (sign in at /account)",
                "mcp": f"POST {MCP_PATH} (MCP, streamable HTTP) with Authorization: Bearer",
            },
        }

    @app.get("/api/v1/limits", tags=["public"])
    def limits() -> dict[str, object]:
        # Rules: C-12
        """Say what each format's scoring does not account for."""
        return {"disclaimer": DISCLAIMER, "limits": {k: list(v) for k, v in LIMITS.items()}}

    return app


def _mount_mcp(app: FastAPI, service: ScenarioService) -> None:
    """Serve the hosted MCP server at ``/mcp``, its session manager in the app's lifespan."""
    hosted = HostedMcp(service)
    app.router.routes.append(
        Route(MCP_PATH, hosted, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )
    before = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        async with hosted.running(), before(application):
            yield

    app.router.lifespan_context = lifespan
