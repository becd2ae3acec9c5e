"""CLI commands of the scenario benchmark: ``scenario create``, ``serve``, ``keys create``.

``tradeleague scenario create`` provisions an immutable scenario version from a
folder of bars (S-SCN-1, S-SCN-2); ``tradeleague keys create`` prints an API
key once (only its hash is stored, S-SVC-4); ``tradeleague serve`` runs the
REST API with uvicorn (OpenAPI at ``/docs``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tradeleague.errors import ConfigError

if TYPE_CHECKING:
    from tradeleague.api import ScenarioService

__all__ = ["register"]

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL (default: $TRADELEAGUE_DB, else sqlite:///./tradeleague.db).",
        show_default=False,
    ),
]


def _date(text: str, what: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{what} {text!r}: write a date such as 2025-06-02") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _service(db: str | None) -> ScenarioService:
    from tradeleague.api import ScenarioService
    from tradeleague.clock import WallClock
    from tradeleague.store import open_store

    return ScenarioService(open_store(db), WallClock())


def _create(
    name: Annotated[str, typer.Argument(help="Scenario name (a-z, 0-9, '.', '_', '-').")],
    market: Annotated[str, typer.Option("--market", help="Folder of <SYMBOL>.csv bars.")],
    symbols: Annotated[str, typer.Option("--symbols", help="Comma-separated universe.")],
    start: Annotated[str, typer.Option("--start", help="First bar date (UTC), inclusive.")],
    end: Annotated[str, typer.Option("--end", help="End date (UTC), exclusive.")],
    leverage: Annotated[int, typer.Option("--leverage", help="Leverage cap: 1, 2, 4 or 10.")] = 1,
    shorting: Annotated[bool, typer.Option("--shorting", help="Allow short/cover.")] = False,
    cash: Annotated[str, typer.Option("--cash", help="Starting cash in USD.")] = "100000",
    slippage: Annotated[
        list[str] | None,
        typer.Option("--slippage", help="Override slippage: SYM=BPS (repeatable)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOption = None,
) -> None:
    """Provision an immutable scenario version from a folder of bars (S-SCN-1, S-SCN-2)."""
    from tradeleague.api.service import provision_from_market
    from tradeleague.formats.scenario import parse_slippage_overrides
    from tradeleague.money import usd

    service = _service(db)
    try:
        scenario = provision_from_market(
            service,
            name,
            market,
            [s for s in symbols.split(",") if s.strip()],
            _date(start, "--start"),
            _date(end, "--end"),
            leverage_cap=leverage,
            allow_short=shorting,
            cash=usd(cash),
            slippage=parse_slippage_overrides(slippage or []),
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    finally:
        service.store.close()
    view = scenario.view()
    if as_json:
        typer.echo(json.dumps(view, indent=2, sort_keys=True))
        return
    console = Console()
    console.print(
        f"scenario [bold]{view['name']}[/] v{view['version']}  id [bold]{view['id']}[/]  "
        f"{view['bars']} bars of {', '.join(scenario.config.symbols)}  "
        f"leverage {view['leverage_cap']}x  shorting {'on' if view['shorting'] else 'off'}  "
        f"hash {str(view['content_hash'])[:12]}",
        highlight=False,
    )


def _keys_create(
    account: Annotated[str, typer.Option("--account", help="Account name.")],
    tier: Annotated[str, typer.Option("--tier", help="free or pro.")] = "free",
    db: DbOption = None,
) -> None:
    """Create an API key for an account and print it once (only its hash is kept)."""
    from tradeleague.api.service import Tier

    try:
        plan = Tier(tier)
    except ValueError:
        raise ConfigError(f"--tier {tier!r}: free or pro") from None
    service = _service(db)
    try:
        key = service.create_key(account, plan)
    finally:
        service.store.close()
    typer.echo(key)
    Console(stderr=True).print(
        f"API key for {account} ({plan.value}). It is shown once; store it now.", highlight=False
    )


def _serve(
    db: DbOption = None,
    host: Annotated[str, typer.Option("--host", help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
) -> None:
    """Serve the REST API: the scenario benchmark, the weights and direction boards (docs at /docs).

    The scenario agent loop and leaderboard live under /api/v1/runs and
    /api/v1/leaderboard, the weights league's tables under /api/v1/weights, the
    direction arena's rounds, logs and boards under /api/v1/direction; /api/v1
    lists them.
    """
    import uvicorn

    from tradeleague.api.site import create_site

    service = _service(db)
    try:
        uvicorn.run(create_site(service), host=host, port=port, log_level="warning")
    finally:
        service.store.close()


def register(app: typer.Typer) -> None:
    """Add ``scenario``, ``keys`` and ``serve`` to the root command."""
    scenario = typer.Typer(
        name="scenario", help="Scenario benchmark: provision scenarios.", no_args_is_help=True
    )
    scenario.command("create")(_create)
    app.add_typer(scenario, name="scenario")
    keys = typer.Typer(name="keys", help="API keys for the scenario service.", no_args_is_help=True)
    keys.command("create")(_keys_create)
    app.add_typer(keys, name="keys")
    app.command("serve")(_serve)
