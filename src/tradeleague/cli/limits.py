"""``tradeleague limits [FORMAT]``: what each format's scoring does not account for (C-12)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.disclosure import LIMITS
from tradeleague.errors import ConfigError

__all__ = ["register"]


def limits(
    format_name: Annotated[
        str | None,
        typer.Argument(metavar="[FORMAT]", help="weights, direction or scenario (default: all)."),
    ] = None,
) -> None:
    """Print what a format's scoring does not account for: read it beside any board.

    Example: tradeleague limits direction
    """
    if format_name is not None and format_name not in LIMITS:
        raise ConfigError(f"no format {format_name!r}; choose one of: {', '.join(LIMITS)}")
    console = Console()
    for name, items in LIMITS.items():
        if format_name in (None, name):
            console.print(f"[bold]{name}[/]: what the scores do not account for")
            for item in items:
                console.print(f"  - {item}", highlight=False)
    console.print(DISCLAIMER)


def register(app: typer.Typer) -> None:
    """Add ``limits`` to ``app``."""
    app.command()(limits)
