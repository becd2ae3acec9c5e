"""What ``tradeleague serve`` builds, and what it asks each format for (`ServePart`).

``serve`` parses its own options and hands them, by name, to every installed
format's ``serve`` part through one `Serving`: the format whose service the
site is built on makes it (the scenario benchmark's: its quotas and limits),
and each format turns the options and the league file (``--config``) into the
site's settings for its pages (the arena's stream and rules) and the account
side (the weights league's owners). The command and the site's composition
name no format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from tradeleague.accounts import AccountHost
from tradeleague.api.account.settings import Summarize
from tradeleague.clock import Clock
from tradeleague.store import Store

__all__ = ["ServePart", "Serving"]


@dataclass(kw_only=True)
class Serving:
    """What ``serve`` is building, filled in by the formats' serve parts.

    Attributes
    ----------
    store, clock
        The store every format's events are in, and the site's clock.
    options
        ``serve``'s options by name (``free_quota``, ``direction_stream``,
        ``owner_season``...); ``None`` where the operator gave none.
    league
        The league file given with ``--config`` (a ``LeagueConfig``), or None.
    service
        The service the site is built on (its REST routes, API keys, accounts).
    settings
        The site's settings, by name, for the formats' site parts.
    owners, summarize
        The account side's owner settings and strategy summarizer.
    """

    store: Store
    clock: Clock
    options: Mapping[str, object]
    league: object | None = None
    service: AccountHost | None = None
    settings: dict[str, object] = field(default_factory=dict)
    owners: object | None = None
    summarize: Summarize | None = None

    def option(self, name: str) -> object | None:
        """Return ``serve``'s option ``name`` (``None`` when it was not given)."""
        return self.options.get(name)


class ServePart(Protocol):
    """A format's share of ``tradeleague serve`` (its ``serve`` part)."""

    def service(self, serving: Serving) -> AccountHost | None:
        """Return the service the site is built on, if this format provides it, else None.

        Raises
        ------
        tradeleague.errors.ConfigError
            An option out of range, in one sentence.
        """
        ...

    def prepare(self, serving: Serving) -> None:
        """Add the format's site settings and account settings to ``serving``."""
        ...
