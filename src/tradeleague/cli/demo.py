"""``tradeleague demo``: replay a short competition on embedded defaults.

No network, no key: SQLite in ``./tradeleague.db`` and, unless ``--market``
names real bars, a seeded synthetic market that is labelled synthetic wherever
it shows.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tradeleague import DISCLAIMER
from tradeleague.agents import make_baseline
from tradeleague.cli.store import DbOption
from tradeleague.errors import ConfigError
from tradeleague.ids import new_id
from tradeleague.league.competition import CompetitionConfig, Standing, run_competition
from tradeleague.league.schedule import daily_round_times
from tradeleague.market import Dataset, load_dataset, synthetic_dataset
from tradeleague.money import format_usd
from tradeleague.stats import percent
from tradeleague.store import open_store, verify

__all__ = ["register"]

_BASELINES = ("cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip")


def _parse_day(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a date like 2026-03-02") from None


def _market(path: Path | None, symbols: str | None, start: str | None, end: str | None) -> Dataset:
    if path is None:
        return synthetic_dataset(8, 120, seed=7)
    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    return load_dataset(
        path, symbols=names, start=_parse_day(start, "--start"), end=_parse_day(end, "--end")
    )


def _table(standings: list[Standing], cash: int, dataset: Dataset, rounds: int) -> Table:
    ordered = sorted(
        standings,
        key=lambda s: (-s.season_return(cash), s.max_drawdown(), s.trades, s.name),
    )
    title = f"Baseline competition on {dataset.label}"
    if dataset.synthetic:
        title += "  [bold yellow](SYNTHETIC market: not real prices)[/]"
    table = Table(title=title, caption=f"{rounds} rounds, one a trading day. {DISCLAIMER}")
    for column, justify in (
        ("rank", "right"),
        ("agent", "left"),
        ("value (USD)", "right"),
        ("return", "right"),
        ("max drawdown", "right"),
        ("trades", "right"),
        ("decisions", "right"),
    ):
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for rank, s in enumerate(ordered, start=1):
        table.add_row(
            str(rank),
            s.name,
            format_usd(s.values[-1]),
            f"{percent(s.season_return(cash)):+.2f}%",
            f"{-percent(s.max_drawdown()):.2f}%",
            str(s.trades),
            str(s.decisions),
        )
    return table


def demo(
    market: Annotated[
        Path | None,
        typer.Option(help="Real bars: a folder of <SYMBOL>.csv files (default: synthetic)."),
    ] = None,
    symbols: Annotated[str | None, typer.Option(help="Comma-separated subset, e.g. SPY,QQQ.")] = None,
    start: Annotated[str | None, typer.Option(help="First day to use (YYYY-MM-DD).")] = None,
    end: Annotated[str | None, typer.Option(help="Day after the last one to use.")] = None,
    days: Annotated[int, typer.Option(min=1, help="Play the last N trading days.")] = 60,
    db: DbOption = None,
    seed: Annotated[int, typer.Option(help="Seed of the coin-flip baseline.")] = 7,
) -> None:
    """Replay a short competition of baseline agents and print its table.

    Runs offline on embedded defaults: SQLite in ./tradeleague.db and a seeded
    synthetic market (clearly labelled) unless --market names real bars. Every
    price read, decision and fill is recorded as a hash-chained event, and the
    record is verified at the end.
    """
    console = Console()
    dataset = _market(market, symbols, start, end)
    rounds = daily_round_times(dataset, days=days)
    agents = [make_baseline(name, seed=seed) for name in _BASELINES]
    benchmark = "SPY" if "SPY" in dataset.symbols else dataset.symbols[0]
    config = CompetitionConfig(benchmark=benchmark)
    stream = f"demo-{new_id()}"
    with open_store(db) as store:
        console.print(f"Recording to {store.url} as stream [bold]{stream}[/]")
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as progress:
            task = progress.add_task("replaying rounds", total=len(rounds))
            standings = run_competition(
                store,
                stream,
                dataset,
                agents,
                rounds,
                config,
                on_round=lambda i, t: progress.update(task, completed=i + 1),
            )
        store.refresh_projections()
        report = verify(store)
    console.print(_table(standings, config.cash, dataset, len(rounds)))
    status = "[green]verified[/]" if report.ok else "[red]FAILED verification[/]"
    console.print(
        f"Record {status}: {report.events} events, chain head {report.head_hash[:12]}... "
        f"(re-check any time: tradeleague verify --db {store.url})"
    )
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to ``app``."""
    app.command()(demo)
