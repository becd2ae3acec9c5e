"""``tradeleague rating``: rate models across the seasons of a store or a sweep."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.terminal.console import board_console
from tradeleague.terminal.options import DbOption

__all__ = ["register"]

_SWEEP_HELP = (
    "Rate the seasons of a finished sweep: its --out folder. The seeds and rosters of one "
    "season are one season (they share its market). Default: the store (--db)."
)
_FORMAT_HELP = "Rate only this format's seasons (e.g. weights). Default: every format found."
_SEED_HELP = "Seeds the bootstrap: the same seasons and seed give the same rating."
_RESAMPLES_HELP = "Bootstrap resamples per interval."
_JSON_HELP = "Print the exact values as JSON (returns as fractions of one) instead of tables."


def rating(
    db: DbOption = None,
    sweep: Annotated[Path | None, typer.Option("--sweep", metavar="OUT", help=_SWEEP_HELP)] = None,
    fmt: Annotated[str | None, typer.Option("--format", metavar="KEY", help=_FORMAT_HELP)] = None,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", min=0, max=2**32 - 1, help=_SEED_HELP)
    ] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=100, max=100_000, help=_RESAMPLES_HELP)
    ] = 10_000,
    as_json: Annotated[bool, typer.Option("--json", help=_JSON_HELP)] = False,
) -> None:
    """Rate each model across seasons and seeds: mean excess return, its interval, which differ.

    Reads every season of each format in the store (--db), or every cell of a
    sweep (--sweep). Each agent is rated as its model (the model id of its
    spec, else its name) by its mean excess return over its seasons against
    cash and the format's benchmark, with a 95% bootstrap interval that
    resamples whole seasons. The pairs table says which models are
    distinguishable at 5% (an exact randomisation test, paired over the
    seasons both played, Holm-corrected across pairs). One season is mostly
    noise: the interval says how much, and a few seasons cannot separate two
    models. The same command gives the same output.

    Example: tradeleague rating --sweep sweep-out --format weights
    """
    from tradeleague.disclaimer import DISCLAIMER
    from tradeleague.errors import ConfigError
    from tradeleague.league.ratings import store_ratings, sweep_ratings
    from tradeleague.league.results import rating_payload
    from tradeleague.plugin import get
    from tradeleague.terminal.ratings import rating_tables

    if sweep is not None and db is not None:
        raise ConfigError("give --sweep OUT or --db URL, not both")
    if sweep is not None:
        ratings = sweep_ratings(sweep, seed=seed, resamples=resamples, only=fmt)
        where = f"the sweep in {sweep}"
    else:
        from tradeleague.store import open_store

        with open_store(db, upgrade=False) as store:
            ratings = store_ratings(store, seed=seed, resamples=resamples, only=fmt)
        where = "the store"
    if not ratings:
        raise ConfigError(f"{where} holds no finished season to rate: replay or sweep one first")
    if as_json:
        body = {
            "disclaimer": DISCLAIMER,
            "formats": {key: rating_payload(r) for key, r in ratings.items()},
        }
        typer.echo(json.dumps(body, indent=2))
        return
    console = board_console()
    for key, found in ratings.items():
        for table in rating_tables(found, get(key).title):
            console.print(table)


def register(app: typer.Typer) -> None:
    """Add ``rating`` to ``app``."""
    app.command("rating")(rating)
