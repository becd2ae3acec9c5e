"""``/docs`` and ``/redoc`` with no network: Swagger UI and ReDoc served from an installed package.

The assets ship in the ``fastapi-offline`` wheel; FastAPI's own page builders
are pointed at them, with no web fonts and no remote favicon.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS", "install_offline_docs"]

ASSETS: Final = Path(fastapi_offline.__file__).with_name("static")
"""Swagger UI's and ReDoc's files, from the installed package."""
_REMOTE_LOGO: Final = "https://cdn.redoc.ly/redoc/logo-mini.svg"


def install_offline_docs(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` from local assets (``app`` made with both URLs off)."""
    title = app.title
    # ReDoc's bundle names a remote logo; the page shows the local favicon instead.
    redoc_js = (ASSETS / "redoc.standalone.js").read_text(encoding="utf-8")
    redoc_js = redoc_js.replace(_REMOTE_LOGO, "/docs-assets/favicon.png")

    @app.get("/docs-assets/redoc.standalone.js", include_in_schema=False)
    def redoc_bundle() -> Response:
        return Response(redoc_js, media_type="application/javascript")

    app.mount("/docs-assets", StaticFiles(directory=ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{title}: API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{title}: API",
            redoc_js_url="/docs-assets/redoc.standalone.js",
            redoc_favicon_url="/docs-assets/favicon.png",
            with_google_fonts=False,
        )
