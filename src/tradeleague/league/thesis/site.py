"""The thesis league on the site: its JSON read routes, its pages, its methodology.

The format's ``site`` part (``web.plugin.SitePart``). One `ThesisReads` serves
``/api/v1/thesis`` and the pages under ``/thesis``; the methodology page states
the decisions the seed leaves open (``formats.thesis.methodology``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final
from urllib.parse import quote

from fastapi import APIRouter
from markupsafe import Markup

from tradeleague.agents.cutoff import CUTOFF_NOTE
from tradeleague.formats.thesis.answer import Reason
from tradeleague.formats.thesis.methodology import THESIS_NOTES
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.scoring import UnrankedReason
from tradeleague.league.story import top_rows
from tradeleague.league.thesis.pages import install_thesis_pages
from tradeleague.league.thesis.plugin import FORMAT
from tradeleague.league.thesis.reads import ThesisReads, thesis_router
from tradeleague.web.methodology import Methodology, methodology
from tradeleague.web.plugin import MethodologyPage, Site, site_prices
from tradeleague.web.render import Pages, cloud, shown

__all__ = ["SITE", "ThesisSite", "thesis_methodology"]


def thesis_methodology(preset: ThesisPreset | None = None) -> Methodology:
    """Return the thesis league's methodology built from ``preset`` (default: the seed's)."""
    groups = {
        "Rejection reasons (answers and decisions)": Reason,
        "Unranked reasons": UnrankedReason,
    }
    return methodology(
        FORMAT.key, FORMAT.title, preset or ThesisPreset(), groups, (*THESIS_NOTES, CUTOFF_NOTE)
    )


class ThesisSite:
    """The thesis league installed on one site (``web.plugin.FormatSite``)."""

    def __init__(self, reads: ThesisReads, pages: Pages) -> None:
        self.reads = reads
        self.pages = pages

    def home(self) -> Markup:
        """Return the home page's lines: the latest season's leaders and race, its seasons."""
        seasons = self.reads.index()["seasons"]
        board = self.reads.board(seasons[-1]) if seasons else None
        top = (
            []
            if board is None
            else top_rows(
                board["rows"],
                lambda r: r["return"],
                lambda r: (
                    f"/thesis/{quote(board['season'], safe='')}/agents/"
                    f"{quote(shown(r['name']), safe='')}"
                ),
            )
        )
        return self.pages.fragment("thesis_home.html", seasons=seasons, board=board, top=top)

    def methodology(self, season: str | None) -> MethodologyPage:
        """Return the league's methodology (``season`` is not read)."""
        return MethodologyPage(methodology=thesis_methodology(self.reads.preset))

    def changelog(self) -> Sequence[Mapping[str, str]]:
        """Return the seasons' changes that affect comparability, dated (C-3)."""
        changes: list[dict[str, str]] = self.reads.changelog()["changes"]
        return changes

    def listing(self) -> object:
        """Return ``/api/v1/thesis``."""
        return "/api/v1/thesis"


class _Site:
    """The thesis league's ``site`` part."""

    templates: Path | None = Path(__file__).with_name("templates")
    settings: frozenset[str] = frozenset({"prices"})

    def install(self, site: Site) -> ThesisSite:
        """Add ``/api/v1/thesis`` and the pages under ``/thesis`` to the site."""
        reads = ThesisReads(site.store, prices=site_prices(site))
        site.app.include_router(thesis_router(reads))
        router = APIRouter(include_in_schema=False)
        install_thesis_pages(router, reads, site.pages.page, site.pages.guarded, cloud)
        site.app.include_router(router)
        return ThesisSite(reads, site.pages)


SITE: Final = _Site()
"""The thesis league's ``site`` part."""
