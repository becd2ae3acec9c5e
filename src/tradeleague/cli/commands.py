"""Which module adds each top-level command, so ``tradeleague --help`` imports none of them.

The root group lists every command from the table below, with the summary its
help starts with, and imports a command's modules only when that command is
run (or its own help is asked for). ``tradeleague --help`` then costs Typer
and Rich alone, however heavy a command's libraries (ccxt, SQLAlchemy, web3,
FastAPI). ``tests/cli/test_cli_commands.py`` checks the table against the
commands the modules really register, so a summary cannot drift from its help.

The table is the CLI's own commands (`SHARED_COMMANDS`) and every installed
format's (`tradeleague.plugin.Format.commands`, read from the registry, whose
format objects name their modules without importing them). To add a shared
command: write its module with a ``register(app)`` that adds it, and add one
line here; a format adds its commands in its own ``plugin.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import typer
import typer.main
from typer import _click as click  # Typer's own Click, which its groups are typed against
from typer.core import TyperCommand, TyperGroup

from tradeleague.errors import ConfigError
from tradeleague.plugin import Format, formats

__all__ = [
    "COMMANDS",
    "ROOT_LOADER",
    "SHARED_COMMANDS",
    "CommandEntry",
    "CommandLoader",
    "FormatsTable",
    "LazyGroup",
    "LazyRoot",
    "load_command",
]


@dataclass(frozen=True)
class CommandEntry:
    """A top-level command: the first paragraph of its help, and the modules that add it."""

    summary: str
    modules: tuple[str, ...]


_M = "tradeleague.cli."

SHARED_COMMANDS: dict[str, CommandEntry] = {
    "demo": CommandEntry(
        "Replay a weights-league season and direction-arena rounds offline; print the boards.",
        (_M + "demo",),
    ),
    "replay": CommandEntry(
        "Replay a season over frozen history with a replay clock and the same code as live.",
        (_M + "replay",),
    ),
    "sweep": CommandEntry(
        "Run a grid of replays (formats x seasons x rosters x seeds) as Ray tasks; merge the "
        "boards.",
        (_M + "sweep",),
    ),
    "rating": CommandEntry(
        "Rate each model across seasons and seeds: mean excess return, its interval, which differ.",
        (_M + "rating",),
    ),
    "run": CommandEntry(
        "Host a league: every format in the league file on its schedule, until stopped.",
        (_M + "run",),
    ),
    "status": CommandEntry(
        "Show each format's season, last and next slot, missed slots and paused agents.",
        (_M + "run",),
    ),
    "report": CommandEntry(
        "Write a season's REPORT.json from the store, as its replay writes it.",
        (_M + "run",),
    ),
    "serve": CommandEntry(
        "Serve the site and the REST API: the scenario benchmark and every board (docs at /docs).",
        (_M + "serve",),
    ),
    "verify": CommandEntry(
        "Walk the hash chain and rebuild every projection from events; exit 1 on any mismatch.",
        (_M + "store",),
    ),
    "export": CommandEntry(
        "Write a season's audit bundle: its events, signed head, REPORT.json and market data.",
        (_M + "bundle",),
    ),
    "log": CommandEntry(
        "Print every recorded answer of a season: model calls, scripted and baseline answers.",
        (_M + "log",),
    ),
    "formats": CommandEntry(
        "List the installed formats: each one's commands, league-file table and site pages.",
        (_M + "formats",),
    ),
    "limits": CommandEntry(
        "Print what a format's scoring does not account for: read it beside any board.",
        (_M + "limits",),
    ),
    "stats": CommandEntry(
        "Statistics for reading a board honestly: how much of a result is luck.",
        (_M + "stats", _M + "null"),
    ),
    "data": CommandEntry(
        "Inspect market data (bar files) before a league or a replay uses it.",
        (_M + "data",),
    ),
    "db": CommandEntry("Manage the event store's database.", (_M + "store",)),
    "agents": CommandEntry(
        "Check a league file's model agents: provider, key, model and context, before round one.",
        (_M + "agents",),
    ),
    "model": CommandEntry(
        "Run the offline house model for other tools: serve it over OpenAI-compatible HTTP.",
        (_M + "model",),
    ),
}
"""The CLI's own commands; each format's are read from the registry (`COMMANDS`)."""


class FormatsTable(Mapping[str, CommandEntry]):
    """A table of commands built from the installed formats, read again when they change.

    ``build`` turns the registry's formats into the table; the registry reads
    its entry points once per process (and again after ``plugin.registry.reload``),
    and the table follows it.
    """

    def __init__(self, build: Callable[[tuple[Format, ...]], dict[str, CommandEntry]]) -> None:
        self._build = build
        self._read: tuple[tuple[Format, ...], dict[str, CommandEntry]] | None = None

    def _table(self) -> dict[str, CommandEntry]:
        found = formats()
        if self._read is None or self._read[0] is not found:
            self._read = (found, self._build(found))
        return self._read[1]

    def __getitem__(self, name: str) -> CommandEntry:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


def _root_table(found: tuple[Format, ...]) -> dict[str, CommandEntry]:
    """Return the CLI's own commands, then each format's, in the registry's order.

    Raises
    ------
    ConfigError
        A format names a command the CLI or another format has already.
    """
    table = dict(SHARED_COMMANDS)
    owner: dict[str, str] = {}
    for fmt in found:
        for name, command in fmt.commands.items():
            if name in table:
                taken = f"format {owner[name]!r}" if name in owner else "the CLI"
                raise ConfigError(
                    f"the format {fmt.key!r} adds a command {name!r} that {taken} has already"
                )
            table[name] = CommandEntry(command.summary, (command.module,))
            owner[name] = fmt.key
    return table


COMMANDS: Final[Mapping[str, CommandEntry]] = FormatsTable(_root_table)
"""Every top-level command: the CLI's own and each installed format's."""


def blank_app(**settings: Any) -> typer.Typer:
    """Return a Typer app with the root's settings, for modules to register into."""
    return typer.Typer(
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode="rich",
        **settings,
    )


class CommandLoader:
    """Imports the modules a table of commands names, each once, and keeps what they add.

    Each module's ``hook(app)`` (``register`` for top-level commands) adds its
    commands; every command a module adds is kept, so a module adding several
    (``run``, ``status``, ``report``) is read once.
    """

    def __init__(self, table: Mapping[str, CommandEntry], hook: str = "register") -> None:
        self.table = table
        self.hook = hook
        self._loaded: dict[str, click.Command] = {}
        self._registered: set[str] = set()

    def loaded(self, name: str) -> click.Command | None:
        """Return command ``name`` if this process has loaded it already."""
        return self._loaded.get(name)

    def load(self, name: str) -> click.Command:
        """Import the modules of command ``name`` and return the command they add."""
        if name not in self._loaded:
            fresh = [m for m in self.table[name].modules if m not in self._registered]
            if fresh:
                app = blank_app()
                for module in fresh:
                    add: Callable[[typer.Typer], None] = getattr(
                        importlib.import_module(module), self.hook
                    )
                    add(app)
                    self._registered.add(module)
                self._loaded.update(typer.main.get_group(app).commands)
        return self._loaded[name]


ROOT_LOADER: Final = CommandLoader(COMMANDS)


def load_command(name: str) -> click.Command:
    """Import the modules of top-level command ``name`` and return the command they add."""
    return ROOT_LOADER.load(name)


class _Summary(TyperCommand):
    """What the root's help lists for a command not loaded yet: its name and summary."""

    def __init__(self, name: str, entry: CommandEntry) -> None:
        super().__init__(name, help=entry.summary, rich_markup_mode="rich")


class LazyGroup(TyperGroup):
    """A group that lists its commands from a table and loads one when it is run.

    Subclasses name the `CommandLoader` of their table (``loader``).
    """

    loader: ClassVar[CommandLoader] = CommandLoader({})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, entry in self.table.items():
            self.commands.setdefault(name, self.loaded(name) or _Summary(name, entry))

    @property
    def table(self) -> Mapping[str, CommandEntry]:
        """The commands this group lists, each with its summary and modules."""
        return self.loader.table

    def loaded(self, name: str) -> click.Command | None:
        """Return command ``name`` if this process has loaded it already."""
        return self.loader.loaded(name)

    def load(self, name: str) -> click.Command:
        """Import the modules of command ``name`` and return the command."""
        return self.loader.load(name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Load the named command before Click looks it up, so the real one runs."""
        if args and args[0] in self.table:
            self.commands[args[0]] = self.load(args[0])
        return super().resolve_command(ctx, args)

    def load_all(self) -> None:
        """Load every command (for walking the whole tree, as the help tests do)."""
        for name in self.table:
            command = self.load(name)
            if isinstance(command, LazyGroup):
                command.load_all()
            self.commands[name] = command


class LazyRoot(LazyGroup):
    """The root group: lists every command from `COMMANDS`, loads one when it is run."""

    loader = ROOT_LOADER
