"""Options several commands share, written once so their help reads the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["DbOption", "DbUrlOption", "JsonOption"]

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL (default: $TRADELEAGUE_DB, else sqlite:///./tradeleague.db).",
        show_default=False,
    ),
]
"""``--db URL``: the event store a command reads or records to."""

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
"""``--json``: one JSON document instead of tables."""

DbUrlOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL, e.g. sqlite:///./league.db or postgresql+psycopg://host/db "
        "(default: $TRADELEAGUE_DB, else sqlite:///./tradeleague.db).",
        show_default=False,
    ),
]
"""``--db URL`` with an example of each kind of URL (the service's commands and ``serve``)."""
