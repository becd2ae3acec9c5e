"""``tradeleague replay FORMAT``: run a season over frozen history with the live code.

The group lists each installed format's subcommand (``Format.replay``, from the
registry) and imports a format's command module only when its subcommand runs
(or its help is asked for): a weights replay loads none of the direction or
thesis code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import typer
from typer import _click as click

from tradeleague.cli.commands import CommandEntry, CommandLoader, FormatsTable, LazyGroup
from tradeleague.plugin import Format

__all__ = ["REPLAY_COMMANDS", "register"]


def _replay_table(found: tuple[Format, ...]) -> dict[str, CommandEntry]:
    """Return ``replay``'s subcommands: each format's ``Format.replay``, in the registry's order.

    Each names a module with ``register_replay(replay_app)`` and the first
    paragraph of the subcommand's help.
    """
    return {
        fmt.key: CommandEntry(fmt.replay.summary, (fmt.replay.module,))
        for fmt in found
        if fmt.replay is not None
    }


REPLAY_COMMANDS: Final[Mapping[str, CommandEntry]] = FormatsTable(_replay_table)
"""``replay``'s subcommands, read from the installed formats."""

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
