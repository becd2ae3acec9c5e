"""``tradeleague rating``: rate models across the seasons of a store or a sweep."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.terminal.console import board_console
from tradeleague.terminal.options import DbOption, ModelsOption

__all__ = ["register"]

_SWEEP_HELP = (
    "Rate the seasons of a finished sweep: its --out folder. The seeds and rosters of one "
    "season are one season (they share its market). Default: the store (--db)."
)
_FORMAT_HELP = "Rate only this format's seasons (e.g. weights). Default: every format found."
_SEED_HELP = "Seeds the bootstrap: the same seasons and seed give the same rating."
_RESAMPLES_HELP = "Bootstrap resamples per interval."
_JSON_HELP = "Print the exact values as JSON (returns as fractions of one) instead of tables."
_BY_HELP = (
    "window: instead of the rating, each model's annualised alpha in each window the sweep "
    "file's [windows] table names (e.g. in and out), and the decay (each window minus in, "
    "else minus the first) with a 95% bootstrap interval over seasons and whether it is "
    "distinguishable from zero. Needs --sweep. Default: the rating itself."
)


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
    by: Annotated[str | None, typer.Option("--by", metavar="window", help=_BY_HELP)] = None,
    models: ModelsOption = None,
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
    models. Each row says whether the model's seasons lie before its
    training cutoff (its results may reflect memory), after it, or whether
    the cutoff is unknown (--models FILE gives cutoffs the record lacks). The
    same command gives the same output.

    With --by window, the alpha decay between the sweep's labelled windows:
    does a model keep out of sample the alpha it shows in sample?

    Example: tradeleague rating --sweep sweep-out --format weights
    """
    from tradeleague.agents.cutoff import read_models
    from tradeleague.disclaimer import DISCLAIMER
    from tradeleague.errors import ConfigError
    from tradeleague.league.ratings import store_ratings, sweep_ratings
    from tradeleague.league.results import rating_payload
    from tradeleague.plugin import get
    from tradeleague.terminal.ratings import rating_tables

    if sweep is not None and db is not None:
        raise ConfigError("give --sweep OUT or --db URL, not both")
    if by is not None:
        _by_window(by, sweep, seed=seed, resamples=resamples, fmt=fmt, as_json=as_json)
        return
    cutoffs = None if models is None else read_models(models)
    if sweep is not None:
        ratings = sweep_ratings(sweep, seed=seed, resamples=resamples, only=fmt, models=cutoffs)
        where = f"the sweep in {sweep}"
    else:
        from tradeleague.store import open_store

        with open_store(db, upgrade=False) as store:
            ratings = store_ratings(store, seed=seed, resamples=resamples, only=fmt, models=cutoffs)
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


def _by_window(
    by: str, sweep: Path | None, *, seed: int, resamples: int, fmt: str | None, as_json: bool
) -> None:
    """Print each format's alpha per window and its decay (`league.ratings.sweep_decay`)."""
    from tradeleague.disclaimer import DISCLAIMER
    from tradeleague.errors import ConfigError
    from tradeleague.league.ratings import decay_payload, sweep_decay
    from tradeleague.plugin import get
    from tradeleague.terminal.ratings import decay_table

    if by != "window":
        raise ConfigError(f"--by {by!r}: the one grouping is window")
    if sweep is None:
        raise ConfigError("--by window reads a sweep's windows: give --sweep OUT")
    found = sweep_decay(sweep, seed=seed, resamples=resamples, only=fmt)
    if not found:
        raise ConfigError(
            f"the sweep in {sweep} has no alpha in any window: a window needs seasons of a "
            "format with a benchmark (weights or thesis) that played at least three rounds"
        )
    if as_json:
        body = {
            "disclaimer": DISCLAIMER,
            "by": "window",
            "formats": {key: decay_payload(d) for key, d in found.items()},
        }
        typer.echo(json.dumps(body, indent=2))
        return
    console = board_console()
    for key, d in found.items():
        console.print(decay_table(d.models, d.labels, d.reference, get(key).title))


def register(app: typer.Typer) -> None:
    """Add ``rating`` to ``app``."""
    app.command("rating")(rating)
