"""The demo: the weights league and the direction arena replayed, recorded, verified.

C-1 (the disclaimer), C-4 (the record verifies), W-RNK-1 (both division tables),
D-LCK-1 (the luck columns), T-AGT-1 (a meta-agent plays beside the baselines).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tradeleague import DISCLAIMER
from tradeleague.cli import app
from tradeleague.store import open_store

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


def _demo(tmp_path: Path, *extra: str) -> str:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    result = runner.invoke(app, ["demo", "--db", db, *extra], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_demo_on_synthetic_market_prints_labelled_boards_and_verifies(tmp_path: Path) -> None:
    """C-1, C-4, W-RNK-1, D-LCK-1: both division tables, the arena board, a verified record."""
    out = _demo(tmp_path, "--no-house-model", "--days", "10", "--rounds", "6")
    flat = _flat(out)
    assert "open division" in flat
    assert "pro division" in flat
    assert "(SYNTHETIC market)" in flat
    assert "SYNTHETIC candles, not real prices" in flat
    for agent in ("pro_cash", "pro_momentum", "open_hold", "open_coin", "contrarian", "coin_flip"):
        assert agent in out
    assert "Break-even hit rate 55.56%" in flat
    assert "luckiest of 5 coin flips" in flat
    assert "Record verified" in flat
    assert _flat(DISCLAIMER) in flat


def test_demo_record_verifies_from_the_cli(tmp_path: Path) -> None:
    """C-4: `tradeleague verify` rebuilds every projection from the demo's events alone."""
    _demo(tmp_path, "--no-house-model", "--days", "7", "--rounds", "3")
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    result = runner.invoke(app, ["verify", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["mismatches"] == []
    assert report["events"] > 50


def test_demo_on_real_data(tmp_path: Path, shared_data: Path) -> None:
    """Real bars when given: no synthetic label on either board."""
    out = _demo(
        tmp_path,
        "--no-house-model",
        "--market",
        str(shared_data / "us_equities_daily"),
        "--symbols",
        "SPY,QQQ,SGOV,USO,AAPL",
        "--end",
        "2026-08-01",
        "--days",
        "10",
        "--candles",
        str(shared_data / "crypto_1m"),
        "--rounds",
        "4",
    )
    assert "SYNTHETIC" not in out
    assert "us_equities_daily" in out


def test_demo_shows_the_house_model_beside_the_baselines(tmp_path: Path) -> None:
    """W-DIV-1: the Open division's house model answers offline, on this CPU, with no key."""
    out = _demo(tmp_path, "--days", "4", "--rounds", "2")
    assert "a format-valid baseline, not a strategist" in _flat(out)
    rows = [line for line in out.splitlines() if "open_house" in line]
    assert rows, out
    decisions = rows[0].split("│")[7].strip()
    assert decisions.endswith("/2") or decisions.endswith("/1"), rows[0]


def test_demo_run_again_resumes_both_formats(tmp_path: Path) -> None:
    """The same demo command twice writes each format's record once: the second run resumes."""
    _demo(tmp_path, "--no-house-model", "--days", "5", "--rounds", "3")
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    with open_store(db) as store:
        first = store.head()
        streams = {s.event.stream for s in store.events()}
    _demo(tmp_path, "--no-house-model", "--days", "5", "--rounds", "3")
    with open_store(db) as store:
        assert store.head() == first
        assert {s.event.stream for s in store.events()} == streams
    assert any(s.startswith("demo-direction-") for s in streams)
