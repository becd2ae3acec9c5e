"""``tradeleague serve``: the site and the REST API, with every installed format's boards.

The scenario benchmark's service answers the agents' REST loop; the site
(`create_site`) mounts every format's pages and read routes beside it. Each
option defaults to the seed's numbers (SPEC S-*); ``--config`` reads a host's
league file for its database and the arena's stream and rules.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer
from rich.console import Console

from tradeleague.errors import ConfigError
from tradeleague.formats.scenario import MIN_IDLE_LIMIT, ServicePreset
from tradeleague.terminal.options import DbUrlOption as DbOption

if TYPE_CHECKING:
    from tradeleague.league.scenario import ScenarioService

__all__ = ["register", "serve_preset"]

_SEED: Final = ServicePreset()
"""The seed's numbers: every option below defaults to them (SPEC S-*)."""

_DAY: Final = timedelta(days=1)
_HOUR: Final = timedelta(hours=1)


def _service(db: str | None, preset: ServicePreset = _SEED) -> ScenarioService:
    from tradeleague.clock import WallClock
    from tradeleague.league.scenario import ScenarioService
    from tradeleague.store import open_store

    return ScenarioService(open_store(db), WallClock(), preset=preset)


def serve_preset(
    *,
    free_quota: int = _SEED.free_quota,
    pro_quota: int = _SEED.pro_quota,
    idle_days: float = _SEED.idle_limit / _DAY,
    idempotency_hours: float = _SEED.idempotency_ttl / _HOUR,
    checkout_url: str = _SEED.checkout_url,
    max_queued: int = _SEED.max_queued,
) -> ServicePreset:
    """Return the service preset that ``tradeleague serve``'s options describe.

    Raises
    ------
    ConfigError
        If a number is out of range (e.g. an idle limit under one hour).
    """
    try:
        return ServicePreset(
            free_quota=free_quota,
            pro_quota=pro_quota,
            idle_limit=idle_days * _DAY,
            idempotency_ttl=idempotency_hours * _HOUR,
            checkout_url=checkout_url,
            max_queued=max_queued,
            slippage=_SEED.slippage,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


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
        int,
        typer.Option(
            "--free-quota",
            help="Runs a free account may start per UTC month; the next is refused with "
            f"402 and --checkout-url (seed: {_SEED.free_quota}).",
        ),
    ] = _SEED.free_quota,
    pro_quota: Annotated[
        int,
        typer.Option(
            "--pro-quota",
            help="Runs a pro account may start per UTC month; the next is refused with "
            f"429 and resets_at (seed: {_SEED.pro_quota}).",
        ),
    ] = _SEED.pro_quota,
    idle_days: Annotated[
        float,
        typer.Option(
            "--idle-days",
            help="Days without activity after which a run is abandoned, fractions "
            f"allowed, at least {MIN_IDLE_LIMIT / _HOUR:g} hour (seed: "
            f"{_SEED.idle_limit / _DAY:g}).",
        ),
    ] = _SEED.idle_limit / _DAY,
    idempotency_hours: Annotated[
        float,
        typer.Option(
            "--idempotency-hours",
            help="Hours an idempotency_key replays its first response (seed: "
            f"{_SEED.idempotency_ttl / _HOUR:g}).",
        ),
    ] = _SEED.idempotency_ttl / _HOUR,
    checkout_url: Annotated[
        str,
        typer.Option(
            "--checkout-url",
            help="Upgrade page sent with a free account's 402.",
        ),
    ] = _SEED.checkout_url,
    max_queued: Annotated[
        int,
        typer.Option("--max-queued", help="Most orders that may wait for one step of a run."),
    ] = _SEED.max_queued,
    direction_stream: Annotated[
        str | None,
        typer.Option(
            "--direction-stream",
            help="The direction arena's event stream to show (the demo prints its own; "
            "default: the league file's, else direction).",
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

    from tradeleague.league.weights.owners import OwnerConfig, house_summarizer
    from tradeleague.site import AccountSettings, create_site

    stream, arena_preset = direction_stream or "direction", None
    if config is not None:
        from tradeleague.host.config import load_league
        from tradeleague.league.direction.config import DirectionConfig, direction_preset

        league = load_league(config)  # checked whole before any database is opened
        db = league.store_url(db)
        arena = league.of(DirectionConfig)
        if arena is not None:
            stream = direction_stream or arena.stream
            arena_preset = direction_preset(arena)
    preset = serve_preset(
        free_quota=free_quota,
        pro_quota=pro_quota,
        idle_days=idle_days,
        idempotency_hours=idempotency_hours,
        checkout_url=checkout_url,
        max_queued=max_queued,
    )
    service = _service(db, preset)
    Console(stderr=True).print(
        f"Serving {service.store.url} on http://{host}:{port}  (API index /api/v1, docs /docs). "
        "Ctrl-C stops.",
        highlight=False,
    )
    try:
        uvicorn.run(
            create_site(
                service,
                direction_stream=stream,
                direction_preset=arena_preset,
                accounts=AccountSettings(
                    siwe_domain=siwe_domain,
                    chain_id=chain_id,
                    owners=OwnerConfig(season=owner_season, endpoints=tuple(owner_endpoint or ())),
                    summarize=house_summarizer(service),
                ),
            ),
            host=host,
            port=port,
            log_level="warning",
        )
    finally:
        service.store.close()


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the root command."""
    app.command("serve")(_serve)
