"""The toy on the site: its board page at ``/toy`` and its JSON at ``/api/v1/toy``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from markupsafe import Markup

from tradeleague.events.streams import season_of
from tradeleague.store import Store
from tradeleague.web.methodology import Methodology
from tradeleague.web.plugin import MethodologyPage, Site
from tradeleague.web.render import Pages

from .season import KEY, report

__all__ = ["SITE", "ToySite"]


def seasons(store: Store) -> list[dict[str, Any]]:
    """Return every toy season's REPORT.json in the store, by season id."""
    ids = sorted({s for e in store.streams(f"{KEY}/") if (s := season_of(KEY, e)) is not None})
    return [r for season in ids if (r := report(store, season)) is not None]


class ToyFace:
    """The toy installed on one site (``web.plugin.FormatSite``)."""

    def __init__(self, store: Store, pages: Pages) -> None:
        self.store = store
        self.pages = pages

    def home(self) -> Markup:
        """Return how many seasons there are to see."""
        return self.pages.fragment("toy_home.html", count=len(seasons(self.store)))

    def methodology(self, season: str | None) -> MethodologyPage:
        """Return the toy's rules in a sentence each."""
        return MethodologyPage(
            methodology=Methodology(
                format=KEY,
                title="Toy league",
                settings=(),
                codes={"no decision": ("not_a_symbol",)},
                limits=("A synthetic tape; no costs beyond the shared rebalance's.",),
            )
        )

    def changelog(self) -> Sequence[Mapping[str, str]]:
        """Return no changes: the toy has one version."""
        return ()

    def listing(self) -> object:
        """Return the toy's JSON route."""
        return "/api/v1/toy"


class ToySite:
    """The toy's ``site`` part (``web.plugin.SitePart``)."""

    templates: Path | None = Path(__file__).parent / "templates"
    settings: frozenset[str] = frozenset()

    def install(self, site: Site) -> ToyFace:
        """Add ``/toy`` and ``/api/v1/toy`` to the site."""
        store = site.store

        @site.app.get("/api/v1/toy", tags=["toy"], summary="Every toy season's board")
        def toy_json() -> dict[str, object]:
            return {"seasons": seasons(store)}

        @site.app.get("/toy", response_class=HTMLResponse, include_in_schema=False)
        def toy_page() -> HTMLResponse:
            return site.pages.page("toy_board.html", title="Toy league", seasons=seasons(store))

        return ToyFace(store, site.pages)


SITE = ToySite()
