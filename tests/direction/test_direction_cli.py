"""``tradeleague replay direction`` end to end, writing REPORT.json (D-SCO, D-LCK, C-1)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS


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


def _arena(
    shared_data: Path, tmp_path: Path, db: str, *agents: str, code: int = 0
) -> tuple[str, dict[str, Any]]:
    """Replay an hour of the arena with ``agents``; return the terminal's text and REPORT.json."""
    out = tmp_path / f"{db}.json"
    args = [
        "replay", "direction", "--market", str(shared_data / "crypto_1m"),
        "--start", "2025-09-01T06:00:00Z", "--end", "2025-09-01T07:00:00Z",
        "--payout", "80", "--no-check", "--db", f"sqlite:///{tmp_path / db}.db", "--out", str(out),
        *[part for spec in agents for part in ("--agent", spec)],
    ]  # fmt: skip
    env = {"COLUMNS": "250", "OPENROUTER_API_KEY": None, "OPENAI_API_KEY": None}
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == code, result.output
    return result.output, json.loads(out.read_text(encoding="utf-8"))


def test_a_model_with_no_key_is_listed_unranked_after_the_traders(
    shared_data: Path, tmp_path: Path
) -> None:
    """D-SCO-3 (and ours): a model with no settled trade is unranked, "no settled trade".

    Its ROI of 0.00% would sit above every trader that lost; it is listed after the
    ranked models in the terminal, REPORT.json and the page, and the ranked order of
    the others is the order they have without it.
    """
    traders = ["bull=baseline:up", "bear=baseline:down", "mom=baseline:momentum"]
    _, alone = _arena(shared_data, tmp_path, "alone", *traders)
    nokey = "nokey=openai:gpt-4o-mini@openrouter"
    text, report = _arena(shared_data, tmp_path, "d", *traders, nokey, code=EXIT_NO_DECISIONS)
    order = [(m["name"], m["rank"]) for m in alone["models"]]
    assert [r for _, r in order] == [1, 2, 3]
    assert any(float(m["roi"]) < 0 for m in alone["models"])  # it would have outranked a loser
    rows = [(m["name"], m["rank"], m["unranked_reason"]) for m in report["models"]]
    assert rows == [(n, r, None) for n, r in order] + [("nokey", None, "no_settled_trade")]
    last = report["models"][-1]
    assert (last["settled"], last["roi"], last["unranked_text"]) == (0, "0.00", "no settled trade")
    # the terminal: the last row, rank "-", its reason in words
    board = text.split("Per agent")[0]  # the cost table follows the summary
    lines = [line for line in board.splitlines() if "│" in line]
    cells = [c.strip() for c in lines[-1].split("│")[1:-1]]
    assert (cells[0], cells[1], cells[-1]) == ("-", "nokey", "no settled trade")
    assert [c.split("│")[2].strip() for c in lines] == [n for n, _ in order] + ["nokey"]
    # the page
    with open_store(f"sqlite:///{tmp_path / 'd'}.db") as store:
        site = create_site(ScenarioService(store, WallClock()), direction_stream="direction")
        with TestClient(site) as client:
            page = client.get("/direction").text
            board = client.get("/api/v1/direction/boards").json()
    assert [m["name"] for m in board["models"]] == [n for n, _ in order] + ["nokey"]
    found = re.search(
        r'<tr data-model="nokey" data-unranked="no_settled_trade">(.*?)</tr>', page, re.S
    )
    assert found is not None
    # each cell carries its heading for the phone's cards (data-label)
    assert '<td data-field="rank" data-label="Rank">–</td>' in found.group(1)
    assert 'data-field="unranked" data-label="Unranked because">no settled trade</td>' in (
        found.group(1)
    )
    ranked = re.findall(r'<tr data-model="([^"]+)">\s*<td data-field="rank"[^>]*>(\d+)</td>', page)
    assert ranked == [(n, str(r)) for n, r in order]
