"""``tradeleague status --json`` names each paused agent with the reason its pause recorded.

A Pro agent whose key the provider rejects three rounds running is paused with
that skip code (W-VAL-9); an operator's pause says so; a resume clears it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from host_helpers import weights_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault


def _league(path: Path, data: Path, db: str, provider: str) -> Path:
    agents = [
        ("equal", "baseline:equal_weight", "open"),
        ("unauth", f"openai:unauth@{provider},key_env=FAKE_KEY", "pro"),
    ]
    providers = '\n[providers.fake]\nkey_env = "FAKE_KEY"\n'
    path.write_text(weights_league(data, db, agents) + providers, encoding="utf-8")
    return path


def _paused(runner: CliRunner, where: list[str]) -> list[dict[str, str]]:
    result = runner.invoke(app, ["status", *where, "--json"])
    assert result.exit_code == 0, result.output
    (weights,) = [f for f in json.loads(result.stdout)["formats"] if f["format"] == "weights"]
    paused: list[dict[str, str]] = weights["paused"]
    return paused


def test_status_names_each_pause_with_its_recorded_reason_w_val_9(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_KEY", "sk-fake")
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'host.db'}"
    with FakeProvider() as fake:
        fake.script_model("unauth", Behaviour(fault=Fault.UNAUTHORIZED))
        league = _league(tmp_path / "league.toml", shared_data, db, fake.url)
        span = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z"]
        result = runner.invoke(
            app, ["run", "--config", str(league), "--clock", "replay", "--no-check", *span]
        )
        assert result.exit_code == 0, result.output
    # status finds the store by the league file as by --db
    assert _paused(runner, ["--config", str(league)]) == [
        {"agent": "unauth", "reason": "key_rejected"}
    ]

    when = ["--db", db, "--now", "2025-09-02T21:00:00Z"]
    result = runner.invoke(app, ["weights", "pause", "--season", "W1", "--agent", "equal", *when])
    assert result.exit_code == 0, result.output
    assert _paused(runner, ["--db", db]) == [
        {"agent": "equal", "reason": "operator"},
        {"agent": "unauth", "reason": "key_rejected"},
    ]
    result = runner.invoke(app, ["weights", "resume", "--season", "W1", "--agent", "equal", *when])
    assert result.exit_code == 0, result.output
    assert _paused(runner, ["--db", db]) == [{"agent": "unauth", "reason": "key_rejected"}]
