"""``tradeleague stats null``: N no-skill agents through the real fill rules, vectorised.

The simulation is the format's own ``null`` part (`tradeleague.cli.plugin.NullPart`),
found through the registry: ``--format`` names any installed format that has one.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.cli.plugin import NullPart
from tradeleague.cli.stats import stats_app
from tradeleague.errors import ConfigError
from tradeleague.plugin import UnknownFormat, formats, get
from tradeleague.stats.null import MAX_AGENTS, NullKind

__all__ = ["register"]


def _with_null() -> list[str]:
    """Return the key of every installed format that has a no-skill null, in registry order."""
    return [fmt.key for fmt in formats() if fmt.has("null")]


_FORMATS = _with_null()


def _null_of(name: str) -> NullPart:
    """Return the null of format ``name``, or say in one sentence which formats have one."""
    try:
        fmt = get(name)
    except UnknownFormat:
        fmt = None
    if fmt is not None and fmt.has("null"):
        part: NullPart = fmt.part("null")
        return part
    raise ConfigError(f"--format {name[:40]!r}: the null runs the {' or '.join(_FORMATS)} format")


def _day(text: str, what: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"{what} {text[:40]!r} is not a date like 2026-03-02") from None


@stats_app.command("null")
def null(
    market: Annotated[Path, typer.Option(help="A folder of <SYMBOL>.csv bars (daily or hourly).")],
    start: Annotated[str, typer.Option(help="First day (YYYY-MM-DD).")],
    end: Annotated[str, typer.Option(help="The day after the last (YYYY-MM-DD).")],
    agents: Annotated[
        int, typer.Option(min=1, max=MAX_AGENTS, help="How many no-skill agents.")
    ] = 1_000,
    symbols: Annotated[
        str | None,
        typer.Option(help="Comma-separated symbols (default: every file of --market)."),
    ] = None,
    format_name: Annotated[
        str,
        typer.Option(
            "--format", help=f"The format whose rules they trade by ({', '.join(_FORMATS)})."
        ),
    ] = _FORMATS[0] if _FORMATS else "",
    kind: Annotated[
        NullKind, typer.Option(help="How each agent picks its weights.")
    ] = NullKind.RANDOM_WEIGHTS,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the agents' draws.")] = 0,
    division: Annotated[
        str,
        typer.Option(
            metavar="DIVISION", help="The division whose rounds they play (weights: open or pro)."
        ),
    ] = "open",
    best_of: Annotated[
        int | None,
        typer.Option(
            "--best-of",
            min=1,
            metavar="N",
            help="Also print the expected best return of N such agents: the agents cut into "
            "whole seasons of N, each season's best averaged (a board of N agents shows it; "
            "default: not printed).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Simulate no-skill agents under the real validation and fill rules; print their returns.

    Every agent trades at the prices, on the rounds, of a replay of the same
    bars, with the same integer rules; the figures are season returns in
    percent: what luck alone gives a board of that many agents.

    Example: tradeleague stats null --market ../shared/data/us_equities_daily
    --symbols SPY,QQQ,SGOV --start 2026-01-05 --end 2026-02-16 --agents 10000
    """
    null_part = _null_of(format_name)
    if best_of is not None and best_of > agents:
        raise ConfigError(f"--best-of {best_of}: give at least as many --agents ({agents} now)")
    from tradeleague.stats.null import expected_best, null_summary

    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    run = null_part.simulate(
        market=market, symbols=names, start=_day(start, "--start"), end=_day(end, "--end"),
        agents=agents, kind=kind, seed=seed, division=division,
    )  # fmt: skip
    summary = null_summary(run.values, run.start_cash, run.rounds)
    best = None if best_of is None else expected_best(run.values, best_of, run.start_cash)
    if as_json:
        shown = summary.to_json()
        if best is not None:
            shown |= {"best_of": best_of, "expected_best": str(best[0]), "seasons": best[1]}
        typer.echo(json.dumps(shown, indent=2))
        return
    typer.echo(f"{summary.agents:,} {kind.value} agents over {summary.rounds} rounds")
    for name, value in summary.quantiles.items():
        typer.echo(f"  {name:>4}: {value:+}%")
    typer.echo(f"  luckiest: {summary.luckiest:+}%")
    if best is not None:
        typer.echo(f"  expected best of {best_of}: {best[0]:+}% (over {best[1]:,} seasons)")


def register(app: typer.Typer) -> None:
    """Nothing to add: the command joins the ``stats`` group when this module is imported."""
