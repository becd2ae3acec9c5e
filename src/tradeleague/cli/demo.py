"""``tradeleague demo``: the formats that offer a demo, replayed on embedded defaults, offline.

No network, no key: SQLite in ``./tradeleague.db`` and, unless ``--market`` or
``--candles`` name real bars, seeded synthetic markets that are labelled
synthetic wherever they show. Each installed format with a ``demo`` part
(`tradeleague.cli.plugin.DemoPart`) is checked first, then played into the same
store, in the registry's order; the record is verified at the end.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from tradeleague import DISCLAIMER
from tradeleague.cli.plugin import DemoPart
from tradeleague.cli.store import register_projections
from tradeleague.plugin import formats
from tradeleague.store import open_store, verify
from tradeleague.terminal.console import board_console
from tradeleague.terminal.demo import DemoOptions
from tradeleague.terminal.exits import EXIT_FAILED
from tradeleague.terminal.options import DbOption

__all__ = ["demo_parts", "register"]


def demo_parts() -> list[DemoPart]:
    """Return the demo part of every installed format that has one, in the registry's order."""
    return [fmt.part("demo") for fmt in formats() if fmt.has("demo")]


def demo(
    market: Annotated[
        Path | None,
        typer.Option(help="Real daily bars: a folder of <SYMBOL>.csv files (default: synthetic)."),
    ] = None,
    symbols: Annotated[
        str | None,
        typer.Option(help="Comma-separated subset, e.g. SPY,QQQ (default: every symbol)."),
    ] = None,
    end: Annotated[
        str | None,
        typer.Option(help="The day after the last one to play (default: the data's end)."),
    ] = None,
    days: Annotated[int, typer.Option(min=1, help="Calendar days of the season to replay.")] = 14,
    house_model: Annotated[
        bool, typer.Option(help="Include the offline house model (needs tradeleague\\[local]).")
    ] = True,
    candles: Annotated[
        Path | None,
        typer.Option(help="Real 1-minute BTCUSDT candles for the arena (default: synthetic)."),
    ] = None,
    rounds: Annotated[int, typer.Option(min=1, help="Direction-arena rounds to replay.")] = 24,
    db: DbOption = None,
) -> None:
    """Replay a weights-league season and direction-arena rounds offline; print the boards.

    Runs on embedded defaults: SQLite in ./tradeleague.db and a seeded synthetic
    market (clearly labelled) unless --market / --candles name real bars.
    Weights league: baselines in both divisions, and in the Open division the
    in-process house model (SmolLM2-135M: a format-valid baseline, not a
    strategist) when installed. Direction arena: up, down, momentum and coin-flip
    baselines and a contrarian meta-agent, settled by the paper broker, with
    the luck columns.
    Every price read, model call, decision and fill is a hash-chained event, and
    the record is verified at the end. Running it again resumes the same season.

    Example: tradeleague demo --rounds 12 --days 7 --db sqlite:///demo.db
    """
    console = board_console()
    options = DemoOptions(
        market=market, symbols=symbols, end=end, days=days, house_model=house_model,
        candles=candles, rounds=rounds,
    )  # fmt: skip
    plays = [part.prepare(options, console) for part in demo_parts()]
    register_projections()
    serve_options: list[str] = []
    with open_store(db) as store:
        console.print(f"Recording to {store.url}")
        for play in plays:
            serve_options += play.play(store, console)
        store.refresh_projections()
        report = verify(store)
    status = "[green]verified[/]" if report.ok else "[red]FAILED verification[/]"
    console.print(
        f"Record {status}: {report.events} events, chain head {report.head_hash[:12]}... "
        f"(re-check any time: tradeleague verify --db {store.url})"
    )
    console.print(
        "What these scores do not account for (luck first): `tradeleague limits`, "
        "or /api/v1/limits on `tradeleague serve`."
    )
    # Quoted for a shell (a stream's label holds parentheses) and never wrapped, so
    # the command can be pasted as printed.
    serve = shlex.join(["tradeleague", "serve", "--db", store.url, *serve_options])
    console.print(
        f"Open the boards in a browser: {serve}, then http://127.0.0.1:8000/",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )
    console.print(DISCLAIMER)
    if not report.ok:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to ``app``."""
    app.command()(demo)
