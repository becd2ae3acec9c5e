"""The CLI starts fast: ``tradeleague --help`` imports no heavy client library (issue 16, item 2).

Each command imports what it needs when it runs; web3, the Ethereum account
tools, the OpenAI SDK, llama.cpp and FastAPI are only for the commands that use
them. The check runs in a fresh interpreter, so nothing another test imported
hides a regression.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

HEAVY = ("web3", "eth_account", "openai", "llama_cpp", "fastapi", "ray")

ROOT_HELP_ONLY = (
    "ccxt", "sqlalchemy", "alembic", "numpy", "aiohttp", "pydantic", "tradeleague.store",
)  # fmt: skip
"""Not even these for ``tradeleague --help``: it lists commands from a table, importing none."""

OTHER_FORMATS = (
    "tradeleague.league.direction", "tradeleague.league.thesis", "tradeleague.formats.thesis",
    "tradeleague.agents.thesis",
)  # fmt: skip
"""Not for ``replay weights``: the other formats' replay commands and leagues..."""

PLUG_INS = {
    "tradeleague.league.direction", "tradeleague.league.direction.plugin",
    "tradeleague.league.thesis", "tradeleague.league.thesis.plugin",
}  # fmt: skip
"""...but their plug-in objects, which the registry reads (and which import no engine)."""


def _other_formats(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m.startswith(OTHER_FORMATS) and m not in PLUG_INS)


_PROBE = """
import json, sys
from tradeleague.cli import app
try:
    app(ARGS, prog_name="tradeleague")
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules} | set(sys.modules))))
"""


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def _top_level_modules(args: list[str]) -> set[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.replace("ARGS", repr(args))],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    names: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return set(names)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["replay", "--help"],
        ["replay", "weights", "--help"],
        ["stats", "--help"],
        ["sweep", "--help"],
    ],
)
def test_help_imports_no_heavy_client_library(args: list[str]) -> None:
    """``--help`` of the CLI and of its groups imports none of web3, openai, llama.cpp, FastAPI."""
    loaded = _top_level_modules(args)
    assert "tradeleague" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_the_probe_sees_a_heavy_import_when_one_happens() -> None:
    """The probe is not blind: importing the live price source does load web3."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, tradeleague.feeds.chainlink; print('web3' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == "True"


def test_root_help_imports_no_command() -> None:
    """``tradeleague --help`` lists the commands without importing their modules or libraries."""
    loaded = _top_level_modules(["--help"])
    assert sorted(loaded & set(ROOT_HELP_ONLY)) == []
    commands = {name for name in loaded if name.startswith("tradeleague.cli.")}
    assert commands == {"tradeleague.cli.commands"}


def test_replay_weights_loads_no_other_format() -> None:
    """``replay weights`` loads the weights commands only, not the direction or thesis replays."""
    loaded = _top_level_modules(["replay", "weights", "--help"])
    assert "tradeleague.league.weights.commands" in loaded
    assert _other_formats(loaded) == []
    assert sorted(loaded & set(HEAVY)) == []


def test_the_replay_table_lists_every_format_with_its_own_summary() -> None:
    """``replay``'s table names each format's subcommand with the first paragraph of its help."""
    import importlib

    import typer.main

    from tradeleague.cli.commands import blank_app
    from tradeleague.cli.replay import REPLAY_COMMANDS

    registered: dict[str, str] = {}
    for module in sorted({m for entry in REPLAY_COMMANDS.values() for m in entry.modules}):
        fresh = blank_app()
        importlib.import_module(module).register_replay(fresh)
        for name, command in typer.main.get_group(fresh).commands.items():
            registered[name] = (command.help or "").split("\n\n")[0].strip()
    assert set(REPLAY_COMMANDS) == set(registered)
    for name, entry in REPLAY_COMMANDS.items():
        assert " ".join(entry.summary.split()) == " ".join(registered[name].split()), name
