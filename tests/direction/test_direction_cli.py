"""``tradeleague replay direction`` end to end, writing REPORT.json (D-SCO, D-LCK, C-1)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.disclaimer import DISCLAIMER


def test_direction_cli_replay_writes_the_report(shared_data: Path, tmp_path: Path) -> None:
    """D-SCO-1..5, D-LCK-1, C-1: the replay command prints the board and writes REPORT.json,
    both carrying the paper-trading line."""
    out = tmp_path / "REPORT.json"
    result = CliRunner().invoke(
        app,
        [
            "replay", "direction", "--market", str(shared_data / "crypto_1m"),
            "--start", "2025-09-01T06:00:00Z", "--end", "2025-09-01T07:00:00Z",
            "--agent", "bull=baseline:up,provider=house,tier=ECO",
            "--agent", "bear=baseline:down,provider=house,tier=TOP",
            "--payout", "80", "--db", f"sqlite:///{tmp_path / 'd.db'}", "--out", str(out),
        ],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["rounds"] == 12
    assert report["disclaimer"] == DISCLAIMER  # C-1
    assert DISCLAIMER in result.output
    keys = {
        "name", "provider", "tier", "balance", "roi", "hit_rate", "answer_rate", "settled",
        "wins", "losses", "draws", "skips", "streak", "rank", "ci_low", "ci_high",
    }  # fmt: skip
    for row in report["models"]:
        assert keys <= set(row)
    bull, bear = sorted(report["models"], key=lambda r: r["name"])[::-1]
    assert bull["wins"] == bear["losses"]
    assert {t["name"] for t in report["tiers"]} == {"ECO", "TOP"}
    assert report["providers"][0]["members"] == ["bear", "bull"] or len(report["providers"]) == 1
    assert "Break-even hit rate 55.56%" in result.output
