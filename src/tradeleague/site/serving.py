"""Build what ``tradeleague serve`` serves, by asking every installed format's ``serve`` part."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import FastAPI

from tradeleague.accounts import AccountHost
from tradeleague.accounts.anonymous import WriteLimit
from tradeleague.api.account.setup import AccountSettings
from tradeleague.api.serving import ServePart, Serving
from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.plugin import formats
from tradeleague.site.app import create_site
from tradeleague.store import Store

__all__ = ["serve_site"]


def serve_site(
    store: Store,
    clock: Clock,
    options: Mapping[str, object],
    *,
    league: object | None = None,
    siwe_domain: str | None = None,
    chain_id: int = 1,
    write_limit: WriteLimit | None = None,
) -> tuple[FastAPI, AccountHost]:
    """Return the site ``serve`` runs, and the service it is built on.

    Every installed format with a ``serve`` part is asked, in registry order,
    for the service (the first that gives one is used), then for its settings.

    Raises
    ------
    ConfigError
        No installed format provides a service, or an option is out of range.
    """
    parts: list[ServePart] = [f.part("serve") for f in formats() if f.has("serve")]
    serving = Serving(store=store, clock=clock, options=options, league=league)
    for part in parts:
        made = part.service(serving)
        if made is not None and serving.service is None:
            serving.service = made
    if serving.service is None:
        raise ConfigError("no installed format provides the service a site is built on")
    for part in parts:
        part.prepare(serving)
    prices = options.get("prices")
    if prices is not None:  # every board's costs are priced with it
        serving.settings["prices"] = prices
    accounts = AccountSettings(
        siwe_domain=siwe_domain,
        chain_id=chain_id,
        owners=serving.owners,
        summarize=serving.summarize,
    )
    site = create_site(
        serving.service,
        clock=None,
        accounts=accounts,
        write_limit=write_limit,
        **serving.settings,
    )
    return site, serving.service
