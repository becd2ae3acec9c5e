"""``tradeleague formats``: the installed formats: commands, league-file tables and pages."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.plugin import formats as installed

__all__ = ["register"]


def formats(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of a table.")
    ] = False,
) -> None:
    """List the installed formats: each one's commands, league-file table and site pages.

    A format installed from another package (registered under the
    "tradeleague.formats" entry points) is listed here as the built-ins are,
    and the host, the site and sweep use it the same way.

    Example: tradeleague formats --json
    """
    found = [f.describe() for f in installed()]
    if as_json:
        typer.echo(json.dumps({"formats": found, "disclaimer": DISCLAIMER}, indent=2))
        return
    table = Table(title="Installed formats", show_lines=True)
    for column in ("format", "title", "commands", "league file", "pages"):
        table.add_column(column, no_wrap=column != "title")
    for f in found:
        commands = ([f["replay"]] if f["replay"] else []) + f["commands"]
        table.add_row(
            escape(f["key"]),
            escape(f["title"]),
            escape("\n".join(commands)) or "-",
            escape(f["league_file_table"] or "not hosted"),
            escape("\n".join(f["pages"])) or "-",
        )
    console = Console()
    console.print(table)
    for f in found:
        console.print(f"[bold]{escape(f['key'])}[/]: {escape(f['summary'])}", highlight=False)
    console.print(DISCLAIMER, highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``formats`` to ``app``."""
    app.command()(formats)
