"""``tradeleague replay FORMAT``: run a season over frozen history with the live code."""

from __future__ import annotations

import importlib

import typer

__all__ = ["register"]

# Each format's CLI module exposes ``register_replay(replay_app)``; add one line per format.
_FORMAT_MODULES: tuple[str, ...] = (
    "tradeleague.cli.weights",
    "tradeleague.cli.direction",
    "tradeleague.cli.thesis",
)

replay_app = typer.Typer(
    name="replay",
    help="Replay a season over frozen history with a replay clock and the same code as live.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add the ``replay`` group, with every format's subcommand, to ``app``."""
    for name in _FORMAT_MODULES:
        importlib.import_module(name).register_replay(replay_app)
    if _FORMAT_MODULES:
        app.add_typer(replay_app)
