"""The scenario benchmark's commands: ``scenario create`` and ``keys create``.

``tradeleague scenario create`` provisions an immutable scenario version from a
folder of bars (S-SCN-1, S-SCN-2); ``tradeleague keys create`` prints an API
key once (only its hash is stored, S-SVC-4). ``tradeleague serve``, which runs
the site and the REST API for every format, is the CLI's own (``cli/serve.py``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer
from rich.console import Console

from tradeleague.errors import ConfigError
from tradeleague.formats.scenario import (
    DEFAULT_CASH,
    LEVERAGE_CAPS,
    ServicePreset,
    SlippageTiers,
)
from tradeleague.money import MICRO
from tradeleague.terminal.options import DbUrlOption as DbOption

if TYPE_CHECKING:
    from tradeleague.league.scenario import ScenarioService

__all__ = ["register"]

_SEED: Final = ServicePreset()
"""The seed's numbers: every option below defaults to them (SPEC S-*)."""

_DAY: Final = timedelta(days=1)
_HOUR: Final = timedelta(hours=1)


def _date(text: str, what: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{what} {text!r}: write a date such as 2025-06-02") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _service(db: str | None, preset: ServicePreset = _SEED) -> ScenarioService:
    from tradeleague.clock import WallClock
    from tradeleague.league.scenario import ScenarioService
    from tradeleague.store import open_store

    return ScenarioService(open_store(db), WallClock(), preset=preset)


def _create(
    name: Annotated[
        str,
        typer.Argument(
            help="Scenario name: lower-case a-z, 0-9, '.', '_', '-' (e.g. mega-caps-june). "
            "Re-using a name adds a new version; old versions never change."
        ),
    ],
    market: Annotated[
        str,
        typer.Option(
            "--market",
            help="Folder of hourly bars, one <SYMBOL>.csv per symbol with columns "
            "timestamp,open,high,low,close,volume (e.g. ../shared/data/us_equities_1h).",
        ),
    ],
    symbols: Annotated[
        str,
        typer.Option(
            "--symbols", help="Comma-separated universe, case-insensitive (e.g. SPY,AAPL,TSLA)."
        ),
    ],
    start: Annotated[
        str,
        typer.Option(
            "--start",
            help="Start of the slice, inclusive: an ISO date or time, UTC unless it "
            "carries an offset (e.g. 2025-06-02 or 2025-06-02T13:30).",
        ),
    ],
    end: Annotated[
        str,
        typer.Option("--end", help="End of the slice, exclusive, same format (e.g. 2025-07-01)."),
    ],
    leverage: Annotated[
        int,
        typer.Option(
            "--leverage",
            help="Leverage cap, one of "
            + ", ".join(str(c) for c in LEVERAGE_CAPS)
            + ": notional exposure may not exceed equity x cap.",
        ),
    ] = 1,
    shorting: Annotated[
        bool,
        typer.Option("--shorting", help="Allow short and cover orders, zero borrow cost."),
    ] = False,
    cash: Annotated[
        str,
        typer.Option("--cash", help="Starting cash in US dollars (e.g. 100000 or 2500.50)."),
    ] = str(DEFAULT_CASH // MICRO),
    slippage: Annotated[
        list[str] | None,
        typer.Option(
            "--slippage",
            help="Slippage of one symbol in basis points (1 bp = 0.01% of the price), "
            "overriding the tiers: SYM=BPS, repeatable (e.g. --slippage TSLA=25).",
            show_default=False,
        ),
    ] = None,
    index_bps: Annotated[
        int,
        typer.Option(
            "--index-bps",
            help="Default slippage of SPY, QQQ, IWM and DIA in bps (seed: "
            f"{_SEED.slippage.index_bps}).",
        ),
    ] = _SEED.slippage.index_bps,
    volatile_bps: Annotated[
        int,
        typer.Option(
            "--volatile-bps",
            help="Default slippage of the high-variance names in bps (seed: "
            f"{_SEED.slippage.high_variance_bps}).",
        ),
    ] = _SEED.slippage.high_variance_bps,
    default_bps: Annotated[
        int,
        typer.Option(
            "--default-bps",
            help="Default slippage of every other symbol in bps (seed: "
            f"{_SEED.slippage.default_bps}).",
        ),
    ] = _SEED.slippage.default_bps,
    volatile: Annotated[
        str,
        typer.Option(
            "--volatile",
            help="Comma-separated high-variance names that get --volatile-bps.",
        ),
    ] = ",".join(sorted(_SEED.slippage.high_variance)),
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the version as JSON instead of one line.")
    ] = False,
    db: DbOption = None,
) -> None:
    """Provision an immutable scenario version from a folder of bars.

    The bars of the slice are copied into the database with a content hash;
    runs stay pinned to the version they started on. Prints the version's id,
    which agents pass to POST /api/v1/runs.

    Example: tradeleague scenario create mega-caps --market ../shared/data/us_equities_1h
    --symbols SPY,AAPL,TSLA --start 2025-06-02 --end 2025-07-01 --leverage 2 --shorting
    """
    from tradeleague.formats.scenario import parse_slippage_overrides
    from tradeleague.league.scenario import provision_from_market
    from tradeleague.money import usd

    try:
        tiers = SlippageTiers(
            index_bps=index_bps,
            high_variance_bps=volatile_bps,
            default_bps=default_bps,
            high_variance=frozenset(s.strip().upper() for s in volatile.split(",") if s.strip()),
        )
        overrides = parse_slippage_overrides(slippage or [])
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    first, last = _date(start, "--start"), _date(end, "--end")
    if first >= last:
        raise ConfigError(f"--start {start} must come before --end {end}")
    names = [s for s in symbols.split(",") if s.strip()]
    if not names:
        raise ConfigError("--symbols names no symbol; give e.g. SPY,AAPL")
    if not Path(market).exists():
        raise ConfigError(f"--market {market}: no such file or folder")
    service = _service(db)
    try:
        scenario = provision_from_market(
            service,
            name,
            market,
            names,
            first,
            last,
            leverage_cap=leverage,
            allow_short=shorting,
            cash=usd(cash),
            slippage=overrides,
            tiers=tiers,
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
    account: Annotated[
        str,
        typer.Option(
            "--account",
            help="Account name, 1-100 printable characters (e.g. ada). An existing "
            "account gets one more key; its other keys keep working.",
        ),
    ],
    tier: Annotated[
        str,
        typer.Option(
            "--tier",
            help=f"Plan: free ({_SEED.free_quota} runs per UTC month, then 402) or pro "
            f"({_SEED.pro_quota}, then 429) at the seed's quotas; serve "
            "--free-quota/--pro-quota change them. Re-tiers an existing account.",
        ),
    ] = "free",
    db: DbOption = None,
) -> None:
    """Create an API key for an account and print it once (only its hash is kept).

    The key goes to stdout alone, so it can be captured; agents send it as the
    X-API-Key header.

    Example: tradeleague keys create --account ada --tier pro > ada.key
    """
    from tradeleague.accounts import Tier

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


def register(app: typer.Typer) -> None:
    """Add ``scenario`` and ``keys`` to the root command."""
    scenario = typer.Typer(
        name="scenario", help="Scenario benchmark: provision scenarios.", no_args_is_help=True
    )
    scenario.command("create")(_create)
    app.add_typer(scenario, name="scenario")
    keys = typer.Typer(name="keys", help="API keys for the scenario service.", no_args_is_help=True)
    keys.command("create")(_keys_create)
    app.add_typer(keys, name="keys")
