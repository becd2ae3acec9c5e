"""One name per season (issue 30 item 3): an arena's season is logged by the id its board shows."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.league.direction.serving import found_arena
from tradeleague.store import open_store
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Script


def _arena(shared_data: Path, db: str, fake_url: str) -> None:
    done = CliRunner().invoke(
        app,
        ["replay", "direction", "--market", str(shared_data / "crypto_1m"),
         "--agent", f"m=openai:m@{fake_url}", "--agent", "up=baseline:up",
         "--start", "2025-09-01T06:00Z", "--end", "2025-09-01T06:10Z", "--timeout", "10",
         "--db", db],
        env={"OPENAI_API_KEY": "sk-test-not-a-key"},
    )  # fmt: skip
    assert done.exit_code in (0, 3), done.output


def test_log_takes_the_arena_season_the_board_shows(shared_data: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    with FakeProvider(Script(models={"m": Behaviour()})) as fake:
        _arena(shared_data, db, fake.url)
    by_stream = CliRunner().invoke(app, ["log", "--season", "direction", "--db", db, "--json"])
    assert by_stream.exit_code == 0, by_stream.output
    rows = [json.loads(line) for line in by_stream.output.splitlines()]
    assert rows
    for season in ("S1", "direction/S1"):
        logged = CliRunner().invoke(app, ["log", "--season", season, "--db", db, "--json"])
        assert logged.exit_code == 0, logged.output
        assert [json.loads(line) for line in logged.output.splitlines()] == rows
    with open_store(db) as store:
        assert found_arena(store) == "direction"


def test_serve_finds_the_demos_arena_and_log_the_season_with_calls(
    shared_data: Path, tmp_path: Path
) -> None:
    """Beside the demo's arena, S1 is in two streams: the log names both; STREAM/S1 picks one."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    demo = ["demo", "--db", db, "--no-house-model", "--days", "3", "--rounds", "2"]
    assert CliRunner().invoke(app, demo).exit_code == 0
    with open_store(db) as store:
        demo_arena = found_arena(store)
    assert demo_arena.startswith("demo-direction-")
    with FakeProvider(Script(models={"m": Behaviour()})) as fake:
        _arena(shared_data, db, fake.url)
    both = CliRunner().invoke(app, ["log", "--season", "S1", "--db", db, "--json"])
    assert both.exit_code != 0
    assert "is in 2 streams: give one of" in str(both.exception)
    assert "direction/S1" in str(both.exception)
    logged = CliRunner().invoke(app, ["log", "--season", "direction/S1", "--db", db, "--json"])
    assert logged.exit_code == 0, logged.output
    rows = [json.loads(line) for line in logged.output.splitlines()]
    assert {(r["agent"], r["source"], r["generated"]) for r in rows} == {
        ("m", "model", False),
        ("up", "baseline", True),
    }
    assert all(r["fields"]["direction"] in ("up", "down") for r in rows if r["agent"] == "up")
    with open_store(db) as store:
        assert found_arena(store) == "direction"
