"""Run a format's replay command in this process, as ``tradeleague replay KEY ARGS`` runs it.

A sweep's cell is the format's own replay command with its own options; the
format's sweep part runs it here, so a cell and the same command typed at the
terminal take the same path and write the same report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import typer

from tradeleague.errors import ConfigError

__all__ = ["run_replay_command"]


def run_replay_command(
    register_replay: Callable[[typer.Typer], None], key: str, argv: Sequence[str]
) -> int:
    """Run ``tradeleague replay KEY *argv`` with the command ``register_replay`` adds.

    Returns the command's exit status (0: it succeeded).

    Raises
    ------
    TradeleagueError
        The command's own one-sentence error; a bad option is a ``ConfigError``
        holding what the CLI says of it.
    """
    replay = typer.Typer(
        name="replay", add_completion=False, pretty_exceptions_enable=False,
        rich_markup_mode="rich",
    )  # fmt: skip

    @replay.callback()
    def _group() -> None:
        """Replay a season over frozen history."""

    register_replay(replay)
    try:
        returned = replay(args=[key, *argv], prog_name="tradeleague replay", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.TyperException as exc:  # a bad option: what the CLI says as its error
        raise ConfigError(exc.format_message()) from None
    return returned if isinstance(returned, int) else 0
