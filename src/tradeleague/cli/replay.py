"""``tradeleague replay FORMAT``: run a season over frozen history with the live code.

The group lists each format's subcommand from the table below and imports a
format's CLI module only when its subcommand runs (or its help is asked for):
a weights replay loads none of the direction or thesis code.
"""

from __future__ import annotations

from typing import Final

import typer
from typer import _click as click

from tradeleague.cli.commands import CommandEntry, CommandLoader, LazyGroup

__all__ = ["REPLAY_COMMANDS", "register"]

_M = "tradeleague.cli."

# Each format's CLI module exposes ``register_replay(replay_app)``; add one line per format,
# with the first paragraph of the subcommand's help.
REPLAY_COMMANDS: dict[str, CommandEntry] = {
    "weights": CommandEntry(
        "Replay a weights season over frozen bars with the live rules; resumable.",
        ("tradeleague.league.weights.commands",),
    ),
    "direction": CommandEntry(
        "Replay direction-arena rounds over frozen candles with the paper broker.",
        ("tradeleague.league.direction.commands",),
    ),
    "thesis": CommandEntry(
        "Replay a thesis-league season over frozen folders, one cycle a day at 16:00 UTC.",
        ("tradeleague.league.thesis.commands",),
    ),
}

REPLAY_LOADER: Final = CommandLoader(REPLAY_COMMANDS, hook="register_replay")


def load_replay(name: str) -> click.Command:
    """Import the module of ``replay NAME`` and return the subcommand it adds."""
    return REPLAY_LOADER.load(name)


class _LazyReplay(LazyGroup):
    loader = REPLAY_LOADER


replay_app = typer.Typer(
    name="replay",
    help="Replay a season over frozen history with a replay clock and the same code as live.",
    no_args_is_help=True,
    cls=_LazyReplay,
)


def register(app: typer.Typer) -> None:
    """Add the ``replay`` group to ``app``; its subcommands load when they run."""
    app.add_typer(replay_app)
