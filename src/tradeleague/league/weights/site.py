"""The weights league on the site: its JSON read routes, its pages, its methodology.

The format's ``site`` part (``web.plugin.SitePart``). One `WeightsReads` serves
``/api/v1/weights`` and the pages under ``/weights``; the methodology page
adds the season's universe (W-UNI-1: the latest season's, or ``?season=``'s).
Settings it reads from the site: ``weights_preset`` (the rules the seasons
were played with; the methodology page shows them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from markupsafe import Markup

from tradeleague.agents.cutoff import CUTOFF_NOTE
from tradeleague.formats.weights import WeightsPreset
from tradeleague.formats.weights.answer import NoDecisionCode
from tradeleague.formats.weights.market_status import ClosedReason, HaltReason
from tradeleague.formats.weights.price_checks import PriceInvalid
from tradeleague.formats.weights.rounds import SkipCode
from tradeleague.formats.weights.scoring import EntryKind, UnrankedReason
from tradeleague.league.story import top_rows
from tradeleague.league.weights.pages import weights_pages
from tradeleague.league.weights.plugin import FORMAT
from tradeleague.league.weights.reads import WeightsReads, weights_router
from tradeleague.stats.alpha import ALPHA_NOTE
from tradeleague.stats.verdicts import VERDICT_NOTE
from tradeleague.web.errors import NotFound
from tradeleague.web.methodology import Methodology, methodology
from tradeleague.web.plugin import MethodologyPage, Site, site_prices
from tradeleague.web.render import Pages, shown

__all__ = ["SITE", "WeightsSite", "weights_methodology"]


def weights_methodology(preset: WeightsPreset | None = None) -> Methodology:
    """Return the weights league's methodology built from ``preset`` (default: the seed's)."""
    groups = {
        "Entries": EntryKind,
        "No-decision reasons (validation, in order)": NoDecisionCode,
        "Skips": SkipCode,
        "Unranked reasons": UnrankedReason,
        "Invalid prices": PriceInvalid,
        "Halts": HaltReason,
        "Market closed": ClosedReason,
    }
    return methodology(
        FORMAT.key,
        FORMAT.title,
        preset or WeightsPreset(),
        groups,
        (VERDICT_NOTE, ALPHA_NOTE, CUTOFF_NOTE),
    )


class WeightsSite:
    """The weights league installed on one site (``web.plugin.FormatSite``)."""

    def __init__(self, reads: WeightsReads, pages: Pages) -> None:
        self.reads = reads
        self.pages = pages

    def _seasons(self) -> list[str]:
        seasons: list[str] = self.reads.index()["seasons"]
        return seasons

    def home(self) -> Markup:
        """Return the home page's lines: the latest season's pro leaders and race, its seasons."""
        seasons = self._seasons()
        board = None if not seasons else self.reads.table(seasons[-1], "pro")
        top = (
            []
            if board is None
            else top_rows(
                board["rows"],
                lambda r: r["season_return"],
                lambda r: (
                    f"/weights/{quote(board['season'], safe='')}/agents/"
                    f"{quote(shown(r['agent']), safe='')}"
                ),
            )
        )
        return self.pages.fragment("weights_home.html", seasons=seasons, board=board, top=top)

    def methodology(self, season: str | None) -> MethodologyPage:
        """Return the methodology with the universe of ``season`` (default: the latest)."""
        universe: dict[str, Any] | None = None
        try:
            universe = self.reads.universe(season)
        except NotFound:
            if season is not None:
                raise
        section = self.pages.fragment(
            "weights_universe.html", universe=universe, seasons=self._seasons()
        )
        return MethodologyPage(
            methodology=weights_methodology(self.reads.preset), sections=(section,)
        )

    def changelog(self) -> Sequence[Mapping[str, str]]:
        """Return the seasons' changes that affect comparability, dated (C-3)."""
        changes: list[dict[str, str]] = self.reads.changelog()["changes"]
        return changes

    def listing(self) -> object:
        """Return ``/api/v1/weights``."""
        return "/api/v1/weights"


class _Site:
    """The weights league's ``site`` part."""

    templates: Path | None = Path(__file__).with_name("templates")
    settings: frozenset[str] = frozenset({"weights_preset", "prices"})

    def install(self, site: Site) -> WeightsSite:
        """Add ``/api/v1/weights`` and the pages under ``/weights`` to the site."""
        preset = site.setting("weights_preset")
        if preset is not None and not isinstance(preset, WeightsPreset):
            raise TypeError(f"weights_preset is a WeightsPreset, not {preset!r}")
        store = site.store
        reads = WeightsReads(
            lambda: contextlib.nullcontext(store),
            clock=site.clock,
            preset=preset,
            prices=site_prices(site),
        )
        site.app.include_router(weights_router(reads=reads))
        site.app.include_router(weights_pages(reads, site.pages))
        return WeightsSite(reads, site.pages)


SITE: Final = _Site()
"""The weights league's ``site`` part."""
