"""``kill -9`` during a replay, then the same command again (C-4, W-RND-2, D-SEA-1).

Each replay is started as its own process and killed with SIGKILL at a moment
drawn from a seed, once at least one round is in the store; the same command
then runs to the end. The REPORT.json must equal an uninterrupted run's byte
for byte, and ``tradeleague verify`` must pass on the resumed store: seasons,
balances, the scripted agent's place in its file and the coin flip's draws all
go on from the record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chaos_helpers import cli, kill_after_rounds, run_to_end  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "chaos-script.jsonl"
    lines = [
        json.dumps({"text": json.dumps({"direction": d, "rationale": f"line {i}"})})
        for i, d in enumerate(["up", "down", "down", "up", "down", "up", "up"] * 3)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _direction(shared_data: Path, script: Path) -> list[str]:
    return [
        "replay", "direction", "--market", str(shared_data / "crypto_1m"),
        "--start", "2025-09-01T06:00:00Z", "--end", "2025-09-01T09:00:00Z",
        "--agent", "coin=baseline:coin_flip", "--agent", "mom=baseline:momentum",
        "--agent", f"script=scripted:{script}", "--payout", "80",
    ]  # fmt: skip


def _weights(shared_data: Path) -> list[str]:
    return [
        "replay", "weights", "--market", str(shared_data / "us_equities_1h"),
        "--start", "2025-06-02", "--end", "2025-07-14",
        "--agent", "coin=baseline:coin_flip", "--agent", "eq=baseline:equal_weight",
        "--agent", "mom=baseline:momentum",
    ]  # fmt: skip


def _uninterrupted(args: list[str], tmp_path: Path) -> bytes:
    out = tmp_path / "whole.json"
    db = f"sqlite:///{tmp_path / 'whole.db'}"
    result = CliRunner().invoke(app, [*args, "--db", db, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_bytes()


def _killed_and_resumed(args: list[str], tmp_path: Path, seed: int) -> None:
    db = tmp_path / f"cut-{seed}.db"
    out = tmp_path / f"cut-{seed}.json"
    argv = cli([*args, "--db", f"sqlite:///{db}", "--out", str(out)])
    killed = kill_after_rounds(argv, db, rounds=1 + seed % 4, seed=seed)
    assert killed, "the replay ended before the kill: lengthen the span"
    assert not out.exists()
    run_to_end(argv)
    verified = CliRunner().invoke(app, ["verify", "--db", f"sqlite:///{db}"])
    assert verified.exit_code == 0, verified.output


_WHOLE: dict[str, bytes] = {}
"""Each format's uninterrupted REPORT.json, made once per session."""


def _args(fmt: str, shared_data: Path, folder: Path) -> list[str]:
    return _direction(shared_data, _script(folder)) if fmt == "direction" else _weights(shared_data)


@pytest.mark.parametrize(
    ("fmt", "seed"), [("direction", 3), ("direction", 8), ("weights", 5), ("weights", 2)]
)
def test_chaos_replay_killed_resumes_to_the_same_report(
    fmt: str, seed: int, shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """C-4: SIGKILL at a seeded moment, rerun: REPORT.json byte-identical, verify passes."""
    folder = tmp_path_factory.mktemp(f"{fmt}-{seed}")
    args = _args(fmt, shared_data, tmp_path_factory.getbasetemp())  # one script path for all
    if fmt not in _WHOLE:
        _WHOLE[fmt] = _uninterrupted(args, tmp_path_factory.mktemp(f"{fmt}-whole"))
    _killed_and_resumed(args, folder, seed)
    assert (folder / f"cut-{seed}.json").read_bytes() == _WHOLE[fmt]
