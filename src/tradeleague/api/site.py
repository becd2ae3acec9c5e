"""The whole public site as one ASGI app: every format's API beside the scenario service.

``tradeleague serve`` runs this. The scenario benchmark's agent loop and
leaderboard, the weights league's read API (``/api/v1/weights``) and the
direction arena's endpoints (``/api/v1/direction``) share one store; the root
``/api/v1`` says what is where, with the disclaimer (C-1).
"""

from __future__ import annotations

import contextlib

from fastapi import FastAPI

from tradeleague import DISCLAIMER, __version__
from tradeleague.api.app import create_app
from tradeleague.api.service import ScenarioService
from tradeleague.clock import Clock
from tradeleague.disclosure import LIMITS
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.weights import WeightsPreset
from tradeleague.host.http import metrics_route
from tradeleague.host.metrics import Metrics
from tradeleague.web.direction_api import DirectionReads, direction_router
from tradeleague.web.pages import install_pages
from tradeleague.web.weights_api import WeightsReads, weights_router

__all__ = ["create_site"]


def create_site(
    service: ScenarioService,
    *,
    direction_stream: str = "direction",
    weights_preset: WeightsPreset | None = None,
    direction_preset: DirectionPreset | None = None,
    clock: Clock | None = None,
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
        Season status and the live round's countdown (default: the wall clock).
    """
    app = create_app(service)
    store = service.store
    weights = WeightsReads(
        lambda: contextlib.nullcontext(store), clock=clock, preset=weights_preset
    )
    direction = DirectionReads(store, stream=direction_stream, preset=direction_preset)
    app.include_router(weights_router(reads=weights))
    app.include_router(direction_router(store, reads=direction), prefix="/api/v1")
    install_pages(app, weights=weights, direction=direction, service=service, clock=clock)
    app.router.routes.append(metrics_route(Metrics()))  # Prometheus text, as the host serves

    @app.get("/api/v1", tags=["public"])
    def root() -> dict[str, object]:
        """Say what this server offers, and that it is paper trading only."""
        return {
            "disclaimer": DISCLAIMER,
            "version": __version__,
            "formats": {
                "scenario": {
                    "leaderboard": "/api/v1/leaderboard",
                    "scenarios": "/api/v1/leaderboard/scenarios",
                    "runs": "/api/v1/runs",
                },
                "weights": "/api/v1/weights",
                "direction": "/api/v1/direction/boards",
            },
            "limits": "/api/v1/limits",
            "docs": "/docs",
        }

    @app.get("/api/v1/limits", tags=["public"])
    def limits() -> dict[str, object]:
        """Say what each format's scoring does not account for (C-12)."""
        return {"disclaimer": DISCLAIMER, "limits": {k: list(v) for k, v in LIMITS.items()}}

    return app
