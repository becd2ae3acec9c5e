"""What the site needs of a format: the `SitePart` protocol, and what the site hands it.

A format implements `SitePart` as ``SITE`` in its own package
(``league/<fmt>/site.py``) and names it as its ``site`` part. The site
(``tradeleague.site``) asks every installed format for that part through the
registry (``tradeleague.plugin.formats()``), installs each on the app with one
`Site`, and builds the shared pages from what each installed format answers
(`FormatSite`): the home page's section, the navigation (the format's title
and board, its ``Format.pages[0]``), the methodology page's frame at
``/methodology/<key>``, and its line in the ``/api/v1`` root. The shared pages
never import a format's package or compare its key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from fastapi import FastAPI
from markupsafe import Markup

from tradeleague.clock import Clock, WallClock
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store
from tradeleague.web.methodology import Methodology
from tradeleague.web.render import Pages

__all__ = ["FormatSite", "MethodologyPage", "Site", "SitePart", "site_prices"]


@dataclass(frozen=True, kw_only=True)
class Site:
    """What the site hands each format's `SitePart` when it installs it.

    Attributes
    ----------
    app
        The site's app: the part adds its JSON routes and pages to it.
    store
        The event store every format's events are in.
    clock
        The site's clock as given (``None``: the wall clock); `now` reads it.
    pages
        The renderer on the site's templates (the format's own folder among
        them), with the 404 page and the guard that turns ``NotFound`` into it.
    settings
        The settings the site was started with, by name (``direction_stream``,
        ``weights_preset``, ``accounts``...): each part reads those it names in
        `SitePart.settings`.
    service
        The scenario service the site is built on (its store is ``store``), for
        the formats that use it; ``None`` when there is none.
    """

    app: FastAPI
    store: Store
    clock: Clock | None
    pages: Pages
    settings: Mapping[str, object] = field(default_factory=dict)
    service: Any = None

    def now(self) -> datetime:
        """Return the site's time (the wall clock's unless a clock was given)."""
        return (self.clock or WallClock()).now()

    def setting(self, name: str) -> object | None:
        """Return setting ``name``, or ``None`` when the site was not given it."""
        return self.settings.get(name)


def site_prices(site: Site) -> PriceTable | None:
    """Return the site's ``prices`` setting: the table every board's costs are priced with.

    Raises
    ------
    TypeError
        If the setting is not a `PriceTable`.
    """
    prices = site.setting("prices")
    if prices is not None and not isinstance(prices, PriceTable):
        raise TypeError(f"prices is a PriceTable, not {prices!r}")
    return prices


@dataclass(frozen=True, kw_only=True)
class MethodologyPage:
    """What ``/methodology/<key>`` shows of a format, beside its changelog.

    Attributes
    ----------
    methodology
        Settings, reason codes, limits and notes, from the format's preset
        (``web.methodology.methodology``).
    sections
        The format's own sections, shown after the settings (the weights
        league's universe), each already rendered (`Pages.fragment`).
    no_changes
        What the changelog says while it is empty, before ", so nothing has
        changed." (``No season has run yet``).
    """

    methodology: Methodology
    sections: Sequence[Markup] = ()
    no_changes: str = "No season has run yet"


class FormatSite(Protocol):
    """One format installed on one site: what the shared pages ask of it."""

    def home(self) -> Markup:
        """Return the format's part of its home-page section, under its title.

        What the format offers in a line or two, and what there is to see (its
        seasons, its scenarios), or that there is nothing yet.
        """
        ...

    def methodology(self, season: str | None) -> MethodologyPage:
        """Return what ``/methodology/<key>`` shows (``season``: its ``?season=``).

        Raises
        ------
        tradeleague.web.errors.NotFound
            ``season`` names no season of the format (the page answers 404).
        """
        ...

    def changelog(self) -> Sequence[Mapping[str, str]]:
        """Return the changes that affect comparability, dated, oldest first (C-3).

        The same list as ``/api/v1/<key>/changelog``; each change has ``date``
        and ``change`` (text the read model already escaped).
        """
        ...

    def listing(self) -> object:
        """Return the format's entry in the ``/api/v1`` root: its path, or paths by name."""
        ...


class SitePart(Protocol):
    """What the site needs of a format (``league/<fmt>/site.py``: ``SITE``).

    Attributes
    ----------
    templates
        The folder of the format's templates (the site loads them beside its
        own), or ``None`` when it has none.
    settings
        The names of the site's settings the part reads (`Site.settings`); the
        site refuses a setting that no installed format reads.
    """

    templates: Path | None
    settings: frozenset[str]

    def install(self, site: Site) -> FormatSite:
        """Add the format's JSON routes and pages to ``site.app``; return its face to the site.

        The part builds its read models on ``site.store`` once, shares them
        between its JSON routes and its pages, and renders its pages with
        ``site.pages``. Its routes are added before the shared pages'.
        """
        ...
