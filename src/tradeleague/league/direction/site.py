"""The direction arena on the site: its JSON routes, its pages, the visitors' desk, its methodology.

The format's ``site`` part (``web.plugin.SitePart``). One `DirectionReads` on
the arena's stream serves ``/api/v1/direction`` and the pages under
``/direction``; visitors' calls, through the JSON route and the page's form
alike, go to one `VisitorDesk` on the site's store, where the host playing
the arena reads them. Settings it reads from the site: ``direction_stream``
(the arena's event stream, default ``direction``) and ``direction_preset``
(the rules; the methodology page shows them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final
from urllib.parse import quote

from markupsafe import Markup

from tradeleague.agents.cutoff import CUTOFF_NOTE
from tradeleague.clock import WallClock
from tradeleague.formats.direction.answer import InvalidReason
from tradeleague.formats.direction.board import UnrankedReason
from tradeleague.formats.direction.methodology import DIRECTION_NOTES
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.season import SeasonEnd
from tradeleague.formats.direction.skips import SkipReason
from tradeleague.formats.direction.visitors import Refusal
from tradeleague.league.direction.pages import direction_pages
from tradeleague.league.direction.plugin import FORMAT
from tradeleague.league.direction.reads import Arenas, DirectionReads, direction_router
from tradeleague.league.direction.visitor_pages import CallForm
from tradeleague.league.direction.visitors import VisitorDesk
from tradeleague.league.story import top_rows
from tradeleague.web.form_csrf import FormTokens
from tradeleague.web.methodology import Methodology, methodology
from tradeleague.web.plugin import MethodologyPage, Site, site_prices
from tradeleague.web.render import Pages, shown

__all__ = ["SITE", "DirectionSite", "direction_methodology"]


def direction_methodology(preset: DirectionPreset | None = None) -> Methodology:
    """Return the arena's methodology built from ``preset`` (default: the seed's)."""
    groups = {
        "Skip classes": SkipReason,
        "Invalid answers": InvalidReason,
        "Season ends": SeasonEnd,
        "Visitors' calls refused": Refusal,
        "Unranked reasons": UnrankedReason,
    }
    return methodology(
        FORMAT.key,
        FORMAT.title,
        preset or DirectionPreset(),
        groups,
        (*DIRECTION_NOTES, CUTOFF_NOTE),
    )


class DirectionSite:
    """The direction arena installed on one site (``web.plugin.FormatSite``)."""

    def __init__(self, reads: DirectionReads, pages: Pages) -> None:
        self.reads = reads
        self.pages = pages

    def home(self) -> Markup:
        """Return the home page's lines: the current season's leaders and race."""
        seasons = self.reads.index()["seasons"]
        board = self.reads.boards() if seasons else None
        top = (
            []
            if board is None
            else top_rows(
                board["models"],
                lambda m: m["roi"],
                lambda m: f"/direction/models/{quote(shown(m['name']), safe='')}",
            )
        )
        return self.pages.fragment("direction_home.html", seasons=seasons, board=board, top=top)

    def methodology(self, season: str | None) -> MethodologyPage:
        """Return the arena's methodology (one season at a time: ``season`` is not read)."""
        return MethodologyPage(methodology=direction_methodology(self.reads.preset))

    def changelog(self) -> Sequence[Mapping[str, str]]:
        """Return the arena's changes that affect comparability, dated (C-3)."""
        changes: list[dict[str, str]] = self.reads.changelog()["changes"]
        return changes

    def listing(self) -> object:
        """Return ``/api/v1/direction``."""
        return "/api/v1/direction"


class _Site:
    """The direction arena's ``site`` part."""

    templates: Path | None = Path(__file__).with_name("templates")
    settings: frozenset[str] = frozenset({"direction_stream", "direction_preset", "prices"})

    def install(self, site: Site) -> DirectionSite:
        """Add ``/api/v1/direction``, the visitors' desk and the pages under ``/direction``."""
        stream = site.setting("direction_stream")
        if stream is None:
            stream = "direction"
        preset = site.setting("direction_preset")
        if not isinstance(stream, str):
            raise TypeError(f"direction_stream is a stream's name, not {stream!r}")
        if preset is not None and not isinstance(preset, DirectionPreset):
            raise TypeError(f"direction_preset is a DirectionPreset, not {preset!r}")
        store = site.store
        reads = DirectionReads(store, stream=stream, preset=preset, prices=site_prices(site))
        desk = VisitorDesk(
            store,
            stream=reads.stream,
            preset=reads.preset,
            clock=site.clock or WallClock(),
            ledger=reads.ledger,
        )
        arenas = Arenas(reads)  # the store's other arenas, read by the JSON and the pages alike
        site.app.include_router(
            direction_router(store, reads=reads, desk=desk, arenas=arenas), prefix="/api/v1"
        )
        calls = CallForm(desk, FormTokens())
        site.app.include_router(direction_pages(reads, site.pages, site.now, calls, arenas))
        return DirectionSite(reads, site.pages)


SITE: Final = _Site()
"""The direction arena's ``site`` part."""
