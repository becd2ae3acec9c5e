"""``tradeleague agents check``: a league file's model agents, checked before any season."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.host.checks import check_league, print_league_checks
from tradeleague.host.config import load_league
from tradeleague.terminal.console import board_console

__all__ = ["register"]

_SUMMARY = "Check a league file's model agents: provider, key, model and context, before round one."

agents_app = typer.Typer(name="agents", help=_SUMMARY, no_args_is_help=True)


@agents_app.command("check")
def check_command(
    config: Annotated[
        Path, typer.Option("--config", metavar="FILE", help="The league file (TOML).")
    ],
) -> None:
    """Ask each model agent of the league file its first round once; record nothing.

    Each format's first round is built from the file's frozen data (its bars,
    candles or folders), at the season's first slot or at the data's last day,
    and sent once to every model agent, as tradeleague run does before its
    first slot: the provider must answer, accept the key and know the model,
    and the prompt must fit the model's context (the line says its size in the
    provider's tokens when the provider counts them). Exits 3 when an agent
    fails, with one line per agent naming the cause and the fix.

    Example: tradeleague agents check --config examples/league.toml
    """
    league = load_league(config)
    console = board_console()
    checked = asyncio.run(check_league(league))
    status = print_league_checks(console, checked)
    if all(checks == [] for _key, checks in checked):
        console.print("No agent of the league file calls a model: nothing to check.")
    if status:
        raise typer.Exit(status)


def register(app: typer.Typer) -> None:
    """Add the ``agents`` group to ``app``."""
    app.add_typer(agents_app)
