"""The ``tradeleague`` command line (Typer + Rich).

Each sub-module registers its own commands; this module wires them together and
turns every expected error into one clear sentence and a non-zero exit.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from tradeleague import DISCLAIMER, __version__
from tradeleague.cli import data, demo, limits, replay, run, scenario, stats, store, weights
from tradeleague.errors import TradeleagueError

__all__ = ["app", "main"]

app = typer.Typer(
    name="tradeleague",
    help=(
        "Run fair, reproducible, fully published paper-trading competitions between agents.\n\n"
        + DISCLAIMER
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)

for _module in (data, stats, store, demo, replay, scenario, weights, limits, run):
    _module.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tradeleague {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Run fair, reproducible, fully published paper-trading competitions between agents."""


def main() -> None:
    """Run the CLI; expected errors become one sentence on stderr and exit status 2.

    Usage errors (a missing option, a bad number) are Typer's own: a short
    message and exit status 2. Anything raised as a ``TradeleagueError`` is
    printed as one sentence, never a traceback.
    """
    err = Console(stderr=True)
    try:
        app()
    except TradeleagueError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted; what was recorded so far is kept.")
        sys.exit(130)
