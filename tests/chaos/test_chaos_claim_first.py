"""A replay takes its season's writer claim before it prints or calls anything (C-4).

While another process holds the season (this test process, claiming its stream
as a running replay does), a second ``replay weights`` with a model agent is
refused at its start: the fake provider counts zero requests and the output is
the refusal alone (no "Recording to", no "resuming from", no round lines),
whether the season is new or already recorded whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from tradeleague.events.weights import season_stream
from tradeleague.formats.weights import Division
from tradeleague.league.weights.replay import replay_season_id
from tradeleague.store import open_store
from tradeleague.testing.fake_provider import FakeProvider

pytestmark = [pytest.mark.shared_data]

ROOT = Path(__file__).resolve().parents[2]
SYMBOLS = "SPY,QQQ,AAPL"
START, END = date(2026, 7, 6), date(2026, 7, 14)


def _market(shared_data: Path, tmp: Path) -> Path:
    folder = tmp / "bars"
    folder.mkdir()
    for symbol in SYMBOLS.split(","):
        (folder / f"{symbol}.csv").symlink_to(shared_data / "us_equities_daily" / f"{symbol}.csv")
    return folder


def _replay(market: Path, url: str, db: str) -> subprocess.CompletedProcess[str]:
    """Run the command as an operator would (its own process, the CLI's exit status)."""
    env = dict(os.environ, OPENAI_API_KEY="sk-test", COLUMNS="200")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    args = [
        sys.executable, "-m", "tradeleague.cli", "replay", "weights",
        "--market", str(market), "--symbols", SYMBOLS,
        "--start", START.isoformat(), "--end", END.isoformat(), "--db", db,
        "--agent", f"paid=openai:paid@{url}", "--agent", "cash=baseline:cash",
    ]  # fmt: skip
    return subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _held_run(market: Path, url: str, db: str) -> subprocess.CompletedProcess[str]:
    season = replay_season_id(market.name, START, END, Division.OPEN)
    with open_store(db) as holder:
        holder.claim(season_stream(season))
        before = holder.head()
        refused = _replay(market, url, db)
        assert holder.head() == before  # the refused run wrote nothing
    return refused


def _only_the_refusal(output: str) -> None:
    text = " ".join(output.split())
    assert "is being written by process" in text
    assert "run this again to resume" in text
    for absent in ("Recording to", "resuming from", "decisions", "Traceback"):
        assert absent not in text


@pytest.mark.parametrize("recorded", [False, True], ids=["new_season", "recorded_season"])
def test_a_refused_replay_makes_no_model_call_and_prints_only_the_refusal(
    shared_data: Path, tmp_path: Path, recorded: bool
) -> None:
    """C-4: a held season refuses a second replay before any output or model request."""
    market = _market(shared_data, tmp_path)
    db = f"sqlite:///{tmp_path / 'league.db'}"
    answer = json.dumps({"targets": {"SPY": 50}, "reason": "Half in SPY."})
    with FakeProvider() as fake:
        fake.script_model("paid", answer)
        if recorded:
            first = _replay(market, fake.url, db)
            assert first.returncode == 0, first.stderr
        asked = len(fake.requests)
        assert asked > 0 or not recorded
        refused = _held_run(market, fake.url, db)
        assert len(fake.requests) == asked  # zero requests from the refused run
    assert refused.returncode == 2, refused.stderr
    _only_the_refusal(refused.stdout + refused.stderr)
