"""The root's command table matches what the modules register (fast ``--help``, issue 16)."""

from __future__ import annotations

import importlib

import typer
import typer.main
from typer.testing import CliRunner

from tradeleague.cli import app, command_tree
from tradeleague.cli.commands import COMMANDS, blank_app


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
