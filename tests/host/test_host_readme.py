"""The README's "Run a league" section, executed as a new user would, and every example file.

Each ``tradeleague`` command of the section's fenced blocks runs in order
(into a scratch database and folder), from nothing to a hosted day, its
status and its reports.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section_commands() -> list[list[str]]:
    section = README.split("## Run a league", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    return [
        shlex.split(line)[1:]
        for block in blocks
        for line in block.splitlines()
        if line.startswith("tradeleague ")
    ]


def test_host_readme_run_a_league_section_runs(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = _section_commands()
    assert [c[0] for c in commands] == ["run", "status", "report", "report", "report"]
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'league.db'}"
    runner = CliRunner()
    outputs = []
    for args in commands:
        args = [str(ROOT / a) if a.startswith("examples/") else a for a in args]
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.stdout)
    status = json.loads(outputs[1])
    assert {f["format"] for f in status["formats"]} == {"weights", "direction", "thesis"}
    weights = json.loads((tmp_path / "REPORT.json").read_text(encoding="utf-8"))
    assert weights["season"] == "W-2025-09"
    assert {a["division"] for a in weights["agents"]} == {"open", "pro"}
    arena = json.loads((tmp_path / "ARENA.json").read_text(encoding="utf-8"))
    assert arena["season"] == "S1"
    thesis = json.loads((tmp_path / "THESIS.json").read_text(encoding="utf-8"))
    assert len(thesis["cycles"]) == 1  # the 16:00 UTC cycle of the hosted span
    assert {a["name"] for a in thesis["agents"]} == {"cash", "hold"}  # the mirror joins later
    assert shared_data.is_dir()


@pytest.mark.parametrize(
    ("example", "span", "rounds"),
    [
        ("weights.toml", ("2025-09-02T00:00Z", "2025-09-03T00:00Z"), 5),
        ("direction.toml", ("2025-09-02T00:00Z", "2025-09-02T01:00Z"), 12),
        ("thesis.toml", ("2025-03-03T00:00Z", "2025-03-06T00:00Z"), 4),
    ],
)
def test_host_example_runs_offline_under_the_replay_clock(
    shared_data: Path, tmp_path: Path, example: str, span: tuple[str, str], rounds: int
) -> None:
    """Each per-format example runs offline, no key, its paths relative to the file."""
    db = f"sqlite:///{tmp_path / 'example.db'}"
    result = CliRunner().invoke(app, [
        "run", "--config", str(ROOT / "examples" / example), "--clock", "replay",
        "--from", span[0], "--to", span[1], "--db", db,
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    status = CliRunner().invoke(app, ["status", "--db", db, "--json"])
    (entry,) = json.loads(status.stdout)["formats"]
    assert entry["last_slot"] is not None
    assert f"Played {rounds} rounds." in result.output
    assert shared_data.is_dir()
