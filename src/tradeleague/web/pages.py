"""The site's shared pages: home, navigation, the methodology frame, 404s, the static files.

Every format's own pages are its site part's (``web.plugin.SitePart``); this
module serves what is the same for all of them, listing the formats the site
installed, in the registry's order, and never naming one. Each page is
rendered from the very read-model functions the JSON API serves, never a
second computation, so a page cannot disagree with ``/api/v1``. The only
script is the live round's countdown and poll (``static/live.js``); every page
reads fully without it. Unknown ids answer a 404 page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from tradeleague.web.errors import NotFound
from tradeleague.web.plugin import FormatSite
from tradeleague.web.render import Pages

__all__ = ["STATIC_DIR", "Installed", "install_pages"]

STATIC_DIR: Final = Path(__file__).with_name("static")


@dataclass(frozen=True, slots=True)
class Installed:
    """A format the site installed: its key, title and board page, and its face to the site."""

    key: str
    title: str
    board: str
    site: FormatSite


def install_pages(app: FastAPI, pages: Pages, formats: Sequence[Installed]) -> None:
    """Add the home page, the methodology frame, the stylesheet and the scripts to ``app``.

    Parameters
    ----------
    app
        The site's app (the formats' routes are already on it).
    pages
        The site's renderer; its navigation lists ``formats``.
    formats
        The formats installed on the site, in the order the site lists them.
    """
    by_key = {f.key: f for f in formats}
    pages.env.globals["nav"] = [{"title": f.title, "board": f.board} for f in formats]
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    def home() -> HTMLResponse:
        sections = [
            pages.fragment(
                "home_section.html", key=f.key, title=f.title, board=f.board, body=f.site.home()
            )
            for f in formats
        ]
        return pages.page("index.html", title="tradeleague", sections=sections)

    @router.get("/methodology/{name}", response_class=HTMLResponse)
    def methodology_page(name: str, season: str | None = None) -> HTMLResponse:
        found = by_key.get(name)
        if found is None:
            return pages.missing(f"no format {name!r}")
        try:
            shown = found.site.methodology(season)
        except NotFound as exc:
            return pages.missing(str(exc))
        m = shown.methodology
        return pages.page(
            "methodology.html",
            title=f"Methodology: {m.title}",
            m=m,
            changes=list(found.site.changelog()),
            sections=shown.sections,
            no_changes=shown.no_changes,
        )

    app.include_router(router)
