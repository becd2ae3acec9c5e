"""The root's command table matches what the modules register (fast ``--help``, issue 16)."""

from __future__ import annotations

import importlib

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from tradeleague.cli import app, command_tree
from tradeleague.cli.commands import COMMANDS, SHARED_COMMANDS, CommandEntry, blank_app


def _registered() -> dict[str, str]:
    """Every top-level command the table's modules add, with its help's first paragraph."""
    found: dict[str, str] = {}
    for module in sorted({m for entry in COMMANDS.values() for m in entry.modules}):
        fresh = blank_app()
        importlib.import_module(module).register(fresh)
        for name, command in typer.main.get_group(fresh).commands.items():
            found[name] = (command.help or "").split("\n\n")[0].strip()
    return found


def test_the_table_lists_every_command_with_its_own_summary() -> None:
    """Each listed summary is the first paragraph of the command's help; none is missing."""
    registered = _registered()
    assert set(COMMANDS) == set(registered)
    for name, entry in COMMANDS.items():
        assert " ".join(entry.summary.split()) == " ".join(registered[name].split()), name


def test_root_help_lists_every_command_and_runs_one() -> None:
    """The root help names every command; running one loads and runs the real command."""
    runner = CliRunner()
    listing = runner.invoke(app, ["--help"], env={"COLUMNS": "250"}, color=False)
    assert listing.exit_code == 0
    for name in COMMANDS:
        assert f" {name} " in listing.output
    limits = runner.invoke(app, ["limits", "weights"], color=False)
    assert limits.exit_code == 0, limits.output
    assert "weights" in limits.output.lower()


def test_the_tree_holds_real_commands_only() -> None:
    """Walking the tree (as the help tests do) reaches each group's own subcommands."""
    root = command_tree()
    replay = root.commands["replay"]
    assert isinstance(replay, typer.core.TyperGroup)
    assert {"weights", "direction", "thesis"} <= set(replay.commands)


def test_each_format_adds_its_commands_and_replay_through_the_registry() -> None:
    """The root and ``replay`` tables hold every installed format's commands, read from it."""
    from tradeleague.cli.replay import REPLAY_COMMANDS
    from tradeleague.plugin import formats

    for fmt in formats():
        for name, command in fmt.commands.items():
            assert COMMANDS[name] == CommandEntry(command.summary, (command.module,))
        if fmt.replay is not None:
            assert REPLAY_COMMANDS[fmt.key].modules == (fmt.replay.module,)
        else:
            assert fmt.key not in REPLAY_COMMANDS
    assert set(SHARED_COMMANDS) <= set(COMMANDS)


def test_a_format_command_named_like_another_is_refused() -> None:
    """A format may not take a command the CLI or another format has: one sentence says whose."""
    from tradeleague.cli.commands import FormatsTable, _root_table
    from tradeleague.errors import ConfigError
    from tradeleague.plugin import Command, Format

    clash = Format(
        key="clash", title="Clash", summary="A clash.", commands={"verify": Command("x", "m")}
    )
    with pytest.raises(ConfigError, match="'verify' that the CLI has already"):
        _root_table((clash,))
    table = FormatsTable(lambda found: {"a": CommandEntry("s", ("m",))})
    assert dict(table) == {"a": CommandEntry("s", ("m",))}
