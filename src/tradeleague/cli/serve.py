"""``tradeleague serve``: the site and the REST API, with every installed format's boards.

The scenario benchmark's service answers the agents' REST loop; the site
(`create_site`) mounts every format's pages and read routes beside it. Each
option defaults to the seed's numbers (SPEC S-*); ``--config`` reads a host's
league file for its database and the arena's stream and rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tradeleague.terminal.options import DbUrlOption as DbOption
from tradeleague.terminal.options import PricesOption, load_prices

__all__ = ["register"]


def _serve(
    db: DbOption = None,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Interface to bind: 127.0.0.1 for this machine only, 0.0.0.0 for every one.",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port to listen on.")] = 8000,
    free_quota: Annotated[
        int | None,
        typer.Option(
            "--free-quota",
            help="Runs a free account may start per UTC month; the next is refused with "
            "402 and --checkout-url (default: the seed's, 25).",
            show_default=False,
        ),
    ] = None,
    pro_quota: Annotated[
        int | None,
        typer.Option(
            "--pro-quota",
            help="Runs a pro account may start per UTC month; the next is refused with "
            "429 and resets_at (default: the seed's, 200).",
            show_default=False,
        ),
    ] = None,
    idle_days: Annotated[
        float | None,
        typer.Option(
            "--idle-days",
            help="Days without activity after which a run is abandoned, fractions "
            "allowed, at least 1 hour (default: the seed's, 5).",
            show_default=False,
        ),
    ] = None,
    idempotency_hours: Annotated[
        float | None,
        typer.Option(
            "--idempotency-hours",
            help="Hours an idempotency_key replays its first response (default: the seed's, 24).",
            show_default=False,
        ),
    ] = None,
    checkout_url: Annotated[
        str | None,
        typer.Option(
            "--checkout-url",
            help="Upgrade page sent with a free account's 402 (default: the benchmark's own page).",
            show_default=False,
        ),
    ] = None,
    max_queued: Annotated[
        int | None,
        typer.Option(
            "--max-queued",
            help="Most orders that may wait for one step of a run (default: the seed's, 200).",
            show_default=False,
        ),
    ] = None,
    direction_stream: Annotated[
        str | None,
        typer.Option(
            "--direction-stream",
            help="The direction arena's event stream shown at /direction, where visitors call "
            "(default: the league file's, else the store's direction arena, else the arena it "
            "started last); every other arena in the store reads at /direction/arenas/STREAM.",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="The league file a host runs: its database (unless --db), and the arena's "
            "stream and round rules, which visitors' calls are taken by.",
        ),
    ] = None,
    siwe_domain: Annotated[
        str | None,
        typer.Option(
            "--siwe-domain",
            help="The domain sign-in messages must name (default: each request's Host).",
        ),
    ] = None,
    chain_id: Annotated[
        int, typer.Option("--chain-id", help="The chain id sign-in messages must name.")
    ] = 1,
    owner_season: Annotated[
        str | None,
        typer.Option(
            "--owner-season", help="The weights season owners join (default: the running one)."
        ),
    ] = None,
    owner_endpoint: Annotated[
        list[str] | None,
        typer.Option(
            "--owner-endpoint",
            help="A base URL a Pro owner's model may be served from, besides the known "
            "providers' (repeat for more).",
        ),
    ] = None,
    prices: PricesOption = None,
) -> None:
    """Serve the site and the REST API: the scenario benchmark and every board (docs at /docs).

    The pages are at / (boards, agent and model pages, methodology). The
    scenario agent loop and leaderboard live under /api/v1/runs and
    /api/v1/leaderboard, the weights league's tables under /api/v1/weights, the
    direction arena's rounds, logs and boards under /api/v1/direction, the
    thesis league's boards under /api/v1/thesis; /api/v1 lists them. Every
    number defaults to the seed's; change one to run the same benchmark under
    another operator's rules.

    Beside a host (tradeleague run) on the same database, visitors may log
    their own calls on the arena's open round; give the host's league file
    with --config so they are taken by the rounds the host plays.

    Example: tradeleague serve --db sqlite:///./league.db --port 8080 --free-quota 10
    """
    import uvicorn

    from tradeleague.clock import WallClock
    from tradeleague.keys import check_master_keys
    from tradeleague.site.serving import serve_site
    from tradeleague.store import open_store

    check_master_keys()  # a malformed key stops here, not as a later vault_unavailable

    table = load_prices(prices)
    league = None
    if config is not None:
        from tradeleague.host.config import load_league

        league = load_league(config)  # checked whole before any database is opened
        db = league.store_url(db)
        table = table or league.prices
    options = {
        "free_quota": free_quota,
        "pro_quota": pro_quota,
        "idle_days": idle_days,
        "idempotency_hours": idempotency_hours,
        "checkout_url": checkout_url,
        "max_queued": max_queued,
        "direction_stream": direction_stream,
        "owner_season": owner_season,
        "owner_endpoint": owner_endpoint,
        "prices": table,
    }
    store = open_store(db)
    try:
        app, _service = serve_site(
            store, WallClock(), options, league=league, siwe_domain=siwe_domain,
            chain_id=chain_id, write_limit=None if league is None else league.limits,
        )  # fmt: skip
        Console(stderr=True).print(
            f"Serving {store.url} on http://{host}:{port}  (API index /api/v1, docs /docs). "
            "Ctrl-C stops.",
            highlight=False,
        )
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the root command."""
    app.command("serve")(_serve)
