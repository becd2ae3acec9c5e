"""Training cutoffs in the direction arena's and the thesis league's reports (issue 28, item 1).

The weights league's marks, board and pages are proven in
``tests/weights/test_training_cutoffs.py``; here each other format's replay marks
its model agents the same way from the same spec option and models file, and its
baselines not at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tradeleague.cli import app

CALL = {"text": json.dumps({"direction": "up", "rationale": "Higher lows."})}


def _statuses(rows: list[dict[str, Any]]) -> dict[str, str | None]:
    return {
        r["name"]: None if r["training_cutoff"] is None else r["training_cutoff"]["status"]
        for r in rows
    }


def _replay(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["replay", *args])
    assert result.exit_code == 0, result.output


def _models_file(tmp_path: Path) -> Path:
    models = tmp_path / "models.toml"
    models.write_text('[models."filed"]\ncutoff = "2030-01"\n', encoding="utf-8")
    return models


def test_direction_report_marks_model_agents(tmp_path: Path, shared_data: Path) -> None:
    """Four rounds: a cutoff after the period, before it, none, from a models file; a baseline."""
    script = tmp_path / "calls.jsonl"
    script.write_text("\n".join(json.dumps(CALL) for _ in range(6)) + "\n", encoding="utf-8")
    out = tmp_path / "REPORT.json"
    agents = [
        "up=baseline:up",
        f"late=scripted:{script},cutoff=2030-01",
        f"early=scripted:{script},cutoff=2024",
        f"unknown=scripted:{script}",
        f"filed=scripted:{script}",
    ]
    _replay(
        [
            "direction", "--market", str(shared_data / "crypto_1m"),
            "--start", "2025-10-01T06:00Z", "--end", "2025-10-01T06:20Z",
            "--db", f"sqlite:///{tmp_path / 'd.db'}", "--out", str(out),
            "--models", str(_models_file(tmp_path)),
            *[a for spec in agents for a in ("--agent", spec)],
        ]
    )  # fmt: skip
    rows = json.loads(out.read_text(encoding="utf-8"))["models"]
    assert _statuses(rows) == {
        "up": None,
        "late": "before_cutoff",
        "early": "after_cutoff",
        "unknown": "cutoff_unknown",
        "filed": "before_cutoff",
    }
    marks = {r["name"]: r["training_cutoff"] for r in rows}
    assert marks["filed"] == {"status": "before_cutoff", "cutoff": "2030-01", "source": "models"}
    assert all("cutoff" not in r for r in rows)  # the recorded keys show only as the mark


def test_thesis_report_marks_model_agents(tmp_path: Path, shared_data: Path) -> None:
    """Three daily cycles: the scripted agent's cutoff is read against the season's first day."""
    script = tmp_path / "theses.jsonl"
    script.write_text('{"text": "no thesis today"}\n' * 12, encoding="utf-8")
    out = tmp_path / "REPORT.json"
    agents = [
        "cash=baseline:cash",
        f"late=scripted:{script},cutoff=2030-01",
        f"early=scripted:{script},cutoff=2024-12",
        f"filed=scripted:{script}",
    ]
    _replay(
        [
            "thesis", "--crypto", str(shared_data / "crypto_4h"),
            "--stocks", str(shared_data / "us_equities_daily"),
            "--start", "2025-03-03", "--end", "2025-03-05", "--no-check",
            "--db", f"sqlite:///{tmp_path / 't.db'}", "--out", str(out),
            "--models", str(_models_file(tmp_path)),
            *[a for spec in agents for a in ("--agent", spec)],
        ]
    )  # fmt: skip
    report = json.loads(out.read_text(encoding="utf-8"))
    assert _statuses(report["agents"]) == {
        "cash": None,
        "late": "before_cutoff",
        "early": "after_cutoff",
        "filed": "before_cutoff",
    }
