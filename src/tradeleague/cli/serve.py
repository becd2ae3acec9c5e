"""``tradeleague serve``: the site and the REST API, with every installed format's boards.

The scenario benchmark's service answers the agents' REST loop; the site
(`create_site`) mounts every format's pages and read routes beside it. Each
option defaults to the seed's numbers (SPEC S-*); ``--config`` reads a host's
league file for its database and the arena's stream and rules.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from rich.console import Console

from tradeleague.errors import ConfigError
from tradeleague.terminal.options import DbUrlOption as DbOption
from tradeleague.terminal.options import PricesOption, load_prices

if TYPE_CHECKING:
    from tradeleague.store import Store

__all__ = ["WORKER_HEADER", "register", "worker_app"]

WORKER_HEADER: Final = "X-Tradeleague-Worker"
"""With ``--workers``, every response names the process that served it (a random name)."""

_WORKER_ARGS: Final = "TRADELEAGUE_SERVE_WORKER_ARGS"
"""The environment variable handing ``serve``'s arguments to its worker processes."""

MAX_WORKERS: Final = 64

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


def _site(args: dict[str, Any], *, upgrade: bool) -> tuple[Store, _App]:
    """Open the store and build the site from ``serve``'s arguments (JSON-safe, by name).

    Raises
    ------
    ConfigError
        The league file, price table or an option is bad (one sentence).
    """
    from tradeleague.clock import WallClock
    from tradeleague.site.serving import serve_site
    from tradeleague.store import open_store

    config = args["config"]
    table = load_prices(None if args["prices"] is None else Path(args["prices"]))
    league = None
    db = args["db"]
    if config is not None:
        from tradeleague.host.config import load_league

        league = load_league(Path(config))  # checked whole before any database is opened
        db = league.store_url(db)
        table = table or league.prices
    options = dict(args["options"], prices=table)
    store = open_store(db, upgrade=upgrade)
    try:
        app, _service = serve_site(
            store, WallClock(), options, league=league, siwe_domain=args["siwe_domain"],
            chain_id=args["chain_id"], write_limit=None if league is None else league.limits,
        )  # fmt: skip
    except BaseException:
        store.close()
        raise
    return store, app


def _named(app: _App, name: str) -> _App:
    """Return ``app`` with every HTTP response carrying `WORKER_HEADER`: ``name``."""
    header = (WORKER_HEADER.lower().encode("latin-1"), name.encode("latin-1"))

    async def named(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def sending(message: _Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        await app(scope, receive, sending)

    return named


def worker_app() -> _App:
    """Build one worker's site from the arguments ``serve --workers`` left in its environment.

    Each worker opens its own connections to the one store; what must be
    shared between them (sign-in nonces, sessions, quotas, idempotency,
    write limits) is kept there (docs/architecture.md, "Several servers").
    """
    args = json.loads(os.environ[_WORKER_ARGS])
    _store, app = _site(args, upgrade=False)  # the parent brought the schema to head
    return _named(app, secrets.token_hex(4))


def _serve_workers(args: dict[str, Any], host: str, port: int, workers: int) -> None:
    """Run ``workers`` processes of the site on one address (uvicorn's supervisor)."""
    import uvicorn

    from tradeleague.keys.session import SESSION_SECRET_ENV
    from tradeleague.store import open_store
    from tradeleague.store.engine import parse_url, resolve_url

    db = args["db"]
    if args["config"] is not None:
        from tradeleague.host.config import load_league

        db = load_league(Path(args["config"])).store_url(db)
    if parse_url(resolve_url(db)).get_backend_name() != "postgresql":
        raise ConfigError(
            f"--workers {workers} needs PostgreSQL: SQLite takes one writer at a time, "
            "so serve a SQLite store with one worker."
        )
    with open_store(db) as store:  # the schema is brought to head once, here
        url = store.url
    _site(args, upgrade=False)[0].close()  # a bad option stops here, before any worker starts
    if not os.environ.get(SESSION_SECRET_ENV, "").strip():  # one secret for every worker
        os.environ[SESSION_SECRET_ENV] = secrets.token_hex(32)
    os.environ[_WORKER_ARGS] = json.dumps(args)
    Console(stderr=True).print(
        f"Serving {url} with {workers} workers on http://{host}:{port}  "
        "(API index /api/v1, docs /docs). Ctrl-C stops.",
        highlight=False,
    )
    uvicorn.run(
        f"{__name__}:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )


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
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=MAX_WORKERS,
            help="Server processes sharing the address, for more pages per second: on "
            "PostgreSQL only (SQLite is refused: it takes one writer at a time). Sign-ins, "
            "sessions, quotas and idempotency live in the store, so any worker serves any "
            "request; set $TRADELEAGUE_SESSION_SECRET to keep sessions across restarts.",
        ),
    ] = 1,
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

    Example: tradeleague serve --db postgresql+psycopg://host/league --workers 4
    """
    import uvicorn

    from tradeleague.keys import check_master_keys

    check_master_keys()  # a malformed key stops here, not as a later vault_unavailable

    args: dict[str, Any] = {
        "db": db,
        "config": None if config is None else str(config),
        "prices": None if prices is None else str(prices),
        "siwe_domain": siwe_domain,
        "chain_id": chain_id,
        "options": {
            "free_quota": free_quota,
            "pro_quota": pro_quota,
            "idle_days": idle_days,
            "idempotency_hours": idempotency_hours,
            "checkout_url": checkout_url,
            "max_queued": max_queued,
            "direction_stream": direction_stream,
            "owner_season": owner_season,
            "owner_endpoint": owner_endpoint,
        },
    }
    if workers > 1:
        _serve_workers(args, host, port, workers)
        return
    store, app = _site(args, upgrade=True)
    try:
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
