"""``tradeleague universe``: what the next weights season would hold if it started now."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from tradeleague.errors import ConfigError
from tradeleague.host.config import load_league
from tradeleague.league.weights.hosting import WeightsConfig, universe_lines, upcoming_universe

__all__ = ["register"]


def universe_command(
    config: Annotated[
        Path, typer.Option("--config", metavar="FILE", help="The league file (TOML).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show what the next weights season would hold if it started now; writes nothing.

    Reads every feed of the league file's feed registry and each token's supply
    from the node at $rpc_url_env (the same read a season makes at its start),
    and prints each symbol's price, supply, value outstanding and rank, and why
    a symbol would be left out. A league file without feeds prints its fixed list.

    Example: TRADELEAGUE_RPC_URL=http://127.0.0.1:8545 tradeleague universe
    --config league.toml
    """
    league = load_league(config)
    weights = league.of(WeightsConfig)
    if weights is None:
        raise ConfigError(f"{config} has no [weights] league, so no universe to read")
    view = upcoming_universe(weights, datetime.now(UTC))
    if as_json:
        typer.echo(json.dumps(view, indent=2))
        return
    for line in universe_lines(view):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``universe`` to ``app``."""
    app.command("universe")(universe_command)
