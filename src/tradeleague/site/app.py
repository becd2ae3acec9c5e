"""The whole public site as one ASGI app: the REST API, every installed format, the accounts.

``tradeleague serve`` runs this. It is the one place that joins the
interfaces: the scenario service's REST app (``api``) with its offline docs
(``web.docs``), then every installed format's site part (its JSON routes and
pages, ``web.plugin.SitePart``) and account part (``api.account.plugin``),
found through the registry (``tradeleague.plugin.formats()``), the accounts,
the hosted MCP server, the shared pages and metrics. One store holds every
format's events; the root ``/api/v1`` says what is where, with the disclaimer
(C-1). It names no format: a format installed from another package is
served like the built-in ones.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException
from starlette.routing import Route

from tradeleague import DISCLAIMER, __version__
from tradeleague.accounts import AccountHost
from tradeleague.accounts.anonymous import WriteLimit, WriteLimits
from tradeleague.api.account.plugin import AccountPart, OwnerDesk
from tradeleague.api.account.routes import install_accounts
from tradeleague.api.account.setup import AccountSettings, build_accounts
from tradeleague.api.app import new_app
from tradeleague.api.errors import http_error_response
from tradeleague.clock import Clock
from tradeleague.disclosure import LIMITS
from tradeleague.errors import ConfigError
from tradeleague.host.http import metrics_route
from tradeleague.host.metrics import CONTENT_TYPE, Metrics
from tradeleague.mcp.hosted import MCP_PATH
from tradeleague.mcp.plugin import mcp_part
from tradeleague.plugin import formats
from tradeleague.site.account_pages import install_account_pages
from tradeleague.web.docs import install_offline_docs
from tradeleague.web.pages import Installed, install_pages
from tradeleague.web.plugin import Site, SitePart
from tradeleague.web.ratings import Rated, RatingsReads, install_ratings
from tradeleague.web.render import Pages, environment

__all__ = ["API_DESCRIPTION", "create_site"]

API_DESCRIPTION = (
    "Drive one deterministic simulator through frozen market history: read the "
    "market, queue orders, step, fetch results, publish.\n\n" + DISCLAIMER
)
"""What heads the served OpenAPI document."""


def create_site(
    service: AccountHost,
    *,
    clock: Clock | None = None,
    accounts: AccountSettings | None = None,
    write_limit: WriteLimit | None = None,
    **settings: object,
) -> FastAPI:
    """Return the scenario app with every installed format's routes and pages, and the accounts.

    Parameters
    ----------
    service
        The scenario service; its store holds every format's events.
    clock
        Season status, the live round's countdown and the moment of a
        visitor's call (default: the wall clock).
    accounts
        Sign-in and owners' settings (default: the request's host, chain 1,
        the running season, master keys from the environment).
    write_limit
        The writes without an account one client address may make per window
        (``accounts.anonymous``; default `WriteLimit()`), counted in the store.
    settings
        The formats' own settings, each read by the format that names it
        (``direction_stream``, ``direction_preset``, ``weights_preset``).

    Raises
    ------
    TypeError
        A setting that no installed format reads.
    """
    installed = [(f, f.part("site")) for f in formats() if f.has("site")]
    parts: list[SitePart] = [part for _, part in installed]
    known = frozenset().union(*(part.settings for part in parts))
    unknown = sorted(set(settings) - known)
    if unknown:
        raise TypeError(f"create_site() got settings no installed format reads: {unknown}")
    app = new_app(API_DESCRIPTION)
    app.state.write_limits = WriteLimits(service.store, write_limit or WriteLimit())
    install_offline_docs(app)
    pages = Pages(environment(p.templates for p in parts if p.templates is not None))
    site = Site(
        app=app,
        store=service.store,
        clock=clock,
        pages=pages,
        settings=settings,
        service=service,
    )
    shown = [
        Installed(key=f.key, title=f.title, board=_board(f.key, f.pages), site=part.install(site))
        for f, part in installed
    ]
    desks: list[OwnerDesk] = []
    for fmt in formats():
        if fmt.has("account"):
            account: AccountPart = fmt.part("account")
            desks.append(account.open(service, accounts or AccountSettings()))
    built = build_accounts(service, accounts, desks)
    install_accounts(app, built)
    _mount_mcp(app, service)
    install_pages(app, pages, shown)
    rated = [Rated(f.key, f.title) for f in formats() if f.has("results")]
    install_ratings(app, pages, RatingsReads(service.store, rated))
    install_account_pages(app, pages, built)
    _pages_for_browsers(app, pages)
    metrics = Metrics()
    app.router.routes.append(metrics_route(metrics))  # Prometheus text, as the host serves
    # from memory, answered before any layer touches a request (`LanedApp.probes`)
    app.probes["/metrics"] = lambda: (CONTENT_TYPE.encode("latin-1"), metrics.render())

    @app.get("/api/v1", tags=["public"], response_model=RootOut, summary="What this server offers")
    def root() -> dict[str, object]:
        """Say what this server offers, and that it is paper trading only.

        Every path outside ``templates`` answers 200 to a plain GET; the
        templates need an id filled in or an API key. Free: no key, no quota.
        """
        return {
            "disclaimer": DISCLAIMER,
            "version": __version__,
            "formats": {f.key: f.site.listing() for f in shown},
            "limits": "/api/v1/limits",
            "ratings": "/api/v1/ratings",
            "docs": "/docs",
            "templates": {
                "leaderboard": "/api/v1/leaderboard?scenario={scenario_id}&metric=return",
                "runs": "GET or POST /api/v1/runs with the X-API-Key header",
                "account": "GET /api/v1/account signed in (sign in at /account)",
                "mcp": f"POST {MCP_PATH} (MCP, streamable HTTP) with Authorization: Bearer",
            },
        }

    @app.get(
        "/api/v1/limits",
        tags=["public"],
        response_model=LimitsOut,
        summary="What the scoring does not account for",
    )
    def limits() -> dict[str, object]:
        # Rules: C-12
        """Say what each format's scoring does not account for. Free: no key, no quota."""
        return {"disclaimer": DISCLAIMER, "limits": {k: list(v) for k, v in LIMITS.items()}}

    return app


class RootOut(BaseModel):
    """What the server offers: each format's JSON routes, the docs and the path templates."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "disclaimer": "Paper trading only.",
                    "version": "0.1.0",
                    "formats": {"scenario": ["/api/v1/scenarios"]},
                    "limits": "/api/v1/limits",
                    "ratings": "/api/v1/ratings",
                    "docs": "/docs",
                    "templates": {"leaderboard": "/api/v1/leaderboard?scenario={scenario_id}"},
                }
            ]
        }
    )

    disclaimer: str = Field(description="Paper trading only: what the figures are not.")
    version: str = Field(description="The server's tradeleague version.")
    formats: dict[str, Any] = Field(description="Each installed format's JSON routes, by key.")
    limits: str = Field(description="Where the scoring's limits are listed.")
    ratings: str = Field(description="Where each format's skill rating is served.")
    docs: str = Field(description="Where the interactive API documentation is.")
    templates: dict[str, str] = Field(description="Paths that need an id or a key filled in.")


class LimitsOut(BaseModel):
    """What each format's scoring does not account for."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"disclaimer": "Paper trading only.", "limits": {"scenario": ["…"]}}]
        }
    )

    disclaimer: str = Field(description="Paper trading only: what the figures are not.")
    limits: dict[str, list[str]] = Field(description="Each format's limits, in sentences.")


def _board(key: str, paths: tuple[str, ...]) -> str:
    """Return a format's board page: the first of its pages."""
    if not paths:
        raise ConfigError(f"the format {key!r} has a site part but names no page")
    return paths[0]


_MACHINE_PATHS = ("/api/", "/mcp", "/openapi.json", "/metrics", "/healthz")
"""Paths that answer programs: their 404 stays the JSON error body whoever asks."""


def _wants_page(request: Request) -> bool:
    """Return whether a 404 of ``request`` is answered with the site's page (a browser asked)."""
    path = request.url.path
    if path == "/api" or path.startswith(_MACHINE_PATHS):
        return False
    accept = request.headers.get("accept", "").lower()
    return "text/html" in accept and "application/json" not in accept


def _pages_for_browsers(app: FastAPI, pages: Pages) -> None:
    """Answer a browser's unknown path with the 404 page and its navigation, others with JSON."""

    async def not_found(request: Request, exc: Exception) -> Response:
        if not isinstance(exc, HTTPException):
            raise exc
        if exc.status_code == 404 and _wants_page(request):
            return pages.missing(f"no page at {request.url.path[:200]}")
        return http_error_response(exc, request)

    app.add_exception_handler(HTTPException, not_found)


def _mount_mcp(app: FastAPI, service: AccountHost) -> None:
    """Serve the hosted MCP server at ``/mcp``, its session manager in the app's lifespan."""
    part = mcp_part()
    if part is None:
        return
    hosted = part.hosted(service)
    app.router.routes.append(
        Route(MCP_PATH, hosted, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )
    before = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        async with hosted.running(), before(application):
            yield

    app.router.lifespan_context = lifespan
