"""The ``tradeleague`` command line (Typer + Rich).

Each sub-module registers its own commands; `tradeleague.cli.commands` lists
them and loads a command's module only when it runs, and this module turns
every expected error into one clear sentence and a non-zero exit.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from tradeleague import DISCLAIMER, __version__
from tradeleague.cli.commands import LazyRoot
from tradeleague.errors import TradeleagueError
from tradeleague.terminal.exits import EXIT_INTERRUPTED, EXIT_USER_ERROR, INTERRUPT_HINT

__all__ = ["EXIT_INTERRUPTED", "EXIT_USER_ERROR", "app", "command_tree", "main"]

app = typer.Typer(
    name="tradeleague",
    help=(
        "Run fair, reproducible, fully published paper-trading competitions between agents.\n\n"
        + DISCLAIMER
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    cls=LazyRoot,
)


def command_tree() -> LazyRoot:
    """Return the root command with every command loaded (to walk the whole tree)."""
    import typer.main

    root = typer.main.get_command(app)
    if not isinstance(root, LazyRoot):  # pragma: no cover - the app is built with cls=LazyRoot
        raise TypeError("the root command is not a LazyRoot")
    root.load_all()
    return root


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tradeleague {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Run fair, reproducible, fully published paper-trading competitions between agents."""


def _usage_sentence(exc: typer.TyperException) -> str:
    message = exc.format_message().strip().rstrip(".")
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or "tradeleague"
    return f"{message} (see {path} --help)."


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every user error becomes one sentence on stderr and exit status 2.

    Usage errors (a missing option, a bad number) and anything raised as a
    ``TradeleagueError`` are printed as one sentence, never a traceback. Ctrl-C
    says that whole rounds are kept and how to resume, and exits 130.
    """
    err = Console(stderr=True, highlight=False)
    try:
        code = app(args=argv, prog_name="tradeleague", standalone_mode=False)
    except TradeleagueError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", markup=True, soft_wrap=True)
        sys.exit(EXIT_USER_ERROR)
    except typer.TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help
            err.print(exc.format_message(), markup=False)
            sys.exit(0)
        sentence = escape(_usage_sentence(exc))
        err.print(f"[bold red]error:[/] {sentence}", markup=True, soft_wrap=True)
        sys.exit(EXIT_USER_ERROR)
    except (KeyboardInterrupt, typer.Abort):
        err.print(INTERRUPT_HINT)
        sys.exit(EXIT_INTERRUPTED)
    if code == EXIT_INTERRUPTED:
        # Typer turns Ctrl-C inside a command into exit status 130.
        err.print(INTERRUPT_HINT)
    sys.exit(code if isinstance(code, int) else 0)
