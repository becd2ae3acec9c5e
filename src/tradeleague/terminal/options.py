"""Options several commands share, written once so their help reads the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["DbOption", "JsonOption"]

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
