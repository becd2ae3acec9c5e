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
from tradeleague.disclosure import LIMITS
from tradeleague.web.direction_api import direction_router
from tradeleague.web.weights_api import weights_router

__all__ = ["create_site"]


def create_site(service: ScenarioService, *, direction_stream: str = "direction") -> FastAPI:
    """Return the scenario app with the weights and direction read APIs mounted beside it."""
    app = create_app(service)
    store = service.store
    app.include_router(weights_router(lambda: contextlib.nullcontext(store)))
    app.include_router(direction_router(store, stream=direction_stream), prefix="/api/v1")

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
                },
                "weights": "/api/v1/weights",
                "direction": "/api/v1/direction",
            },
            "limits": "/api/v1/limits",
            "docs": "/docs",
            "templates": {
                "leaderboard": "/api/v1/leaderboard?scenario={scenario_id}&metric=return",
                "runs": "GET or POST /api/v1/runs with the X-API-Key header",
            },
        }

    @app.get("/api/v1/limits", tags=["public"])
    def limits() -> dict[str, object]:
        """Say what each format's scoring does not account for (C-12)."""
        return {"disclaimer": DISCLAIMER, "limits": {k: list(v) for k, v in LIMITS.items()}}

    return app
