"""Options several commands share, written once so their help reads the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tradeleague.agents.cutoff import MODELS_HELP
from tradeleague.errors import ConfigError
from tradeleague.llm.token_prices import PriceTable

__all__ = [
    "CheckOption",
    "DbOption",
    "DbUrlOption",
    "JsonOption",
    "ModelsOption",
    "PricesOption",
    "load_prices",
    "with_cutoffs",
]

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

PricesOption = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        metavar="FILE",
        help='Price table (TOML: pricing_version, then one [models."ID"] table per model id '
        "with input_per_million and output_per_million in USD) that turns each recorded "
        "call's tokens into cost: the cost table under the board and REPORT.json's costs "
        "show each agent's cost, cost per decision and return net of cost. Default: none, "
        "so every model reads unpriced (never 0).",
        show_default=False,
    ),
]
"""``--prices FILE``: the price table a replay prices its calls with."""

ModelsOption = Annotated[
    Path | None,
    typer.Option("--models", metavar="FILE", help=MODELS_HELP),
]

CheckOption = Annotated[
    bool,
    typer.Option(
        "--check/--no-check",
        help="Before round one, ask each model agent the first round's real prompt once: "
        "its provider must answer, accept the key and know the model, and the prompt must "
        "fit the model's context. An agent that fails gets one line with the cause and the "
        "fix, and nothing is played (exit 3). The answer is not recorded.",
    ),
]
"""``--check/--no-check``: the check before round one (`tradeleague.league.check`)."""


def load_prices(path: Path | None) -> PriceTable | None:
    """Return the price table at ``path`` (``None``: no table).

    Raises
    ------
    ConfigError
        If the file cannot be read or holds a bad table, naming the option.
    """
    if path is None:
        return None
    try:
        return PriceTable.from_file(path)
    except ConfigError as exc:
        raise ConfigError(f"--prices: {exc}") from exc


def with_cutoffs(specs: list[str], models: Path | None) -> list[str]:
    """Return ``--agent`` specs with their training cutoffs written in (``agents.cutoff``).

    Raises
    ------
    ConfigError
        The models file cannot be read or holds a bad cutoff.
    """
    from tradeleague.agents.cutoff import read_models, resolve_cutoffs

    return resolve_cutoffs(specs, None if models is None else read_models(models))
