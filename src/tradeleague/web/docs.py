"""``/docs`` and ``/redoc`` with no network: Swagger UI and ReDoc served from an installed package.

The assets ship in the ``fastapi-offline`` wheel; FastAPI's own page builders
are pointed at them, with no web fonts and no remote favicon, and the pages
they build get our language attribute and contrast fixes (``static/docs.css``).
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
_DOCS_CSS: Final = Path(__file__).with_name("static") / "docs.css"
_OUR_CSS: Final = '<link rel="stylesheet" href="/docs-assets/tradeleague-docs.css">'


def _ours(page: HTMLResponse, *, root: str | None = None) -> str:
    """Return FastAPI's page with our parts: its language, our colour fixes, a root id.

    Raises ``RuntimeError`` when FastAPI's page no longer has the markup we edit,
    so a FastAPI upgrade that changes it fails loudly at startup.
    """
    text = bytes(page.body).decode("utf-8")
    edits = [("<html>", '<html lang="en">'), ("</head>", f"{_OUR_CSS}\n    </head>")]
    if root is not None:
        edits.append(("<redoc ", f'<redoc id="{root}" '))
    for old, new in edits:
        if old not in text:
            raise RuntimeError(f"FastAPI's docs page has no {old!r} to edit")
        text = text.replace(old, new, 1)
    return text


def install_offline_docs(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` from local assets (``app`` made with both URLs off).

    Our pages around the bundles say their language and load ``static/docs.css``
    (colours with enough contrast). Swagger UI runs without deep links: they put
    a link inside each operation's toggle button (a link nested in a button).
    """
    title = app.title
    openapi_url = app.openapi_url or "/openapi.json"
    # ReDoc's bundle names a remote logo; the page shows the local favicon instead.
    redoc_js = (ASSETS / "redoc.standalone.js").read_text(encoding="utf-8")
    redoc_js = redoc_js.replace(_REMOTE_LOGO, "/docs-assets/favicon.png")
    docs_css = _DOCS_CSS.read_text(encoding="utf-8")
    swagger_page = _ours(
        get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title}: API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon.png",
            swagger_ui_parameters={"deepLinking": False},
        )
    )
    redoc_page = _ours(
        get_redoc_html(
            openapi_url=openapi_url,
            title=f"{title}: API",
            redoc_js_url="/docs-assets/redoc.standalone.js",
            redoc_favicon_url="/docs-assets/favicon.png",
            with_google_fonts=False,
        ),
        root="api",
    )

    @app.get("/docs-assets/redoc.standalone.js", include_in_schema=False)
    def redoc_bundle() -> Response:
        return Response(redoc_js, media_type="application/javascript")

    @app.get("/docs-assets/tradeleague-docs.css", include_in_schema=False)
    def docs_stylesheet() -> Response:
        return Response(docs_css, media_type="text/css")

    app.mount("/docs-assets", StaticFiles(directory=ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return HTMLResponse(swagger_page)

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return HTMLResponse(redoc_page)
