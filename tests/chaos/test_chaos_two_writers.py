"""Two identical replay commands on one store at once: one writes, one is refused (C-4).

Real subprocesses, as an operator would start them: the loser is refused at its
first append, before it writes anything, with a message naming the holder; the
season verifies, and the same command run again afterwards resumes it (it is
complete, so nothing more is written).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradeleague.store import open_store, verify

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]

ROOT = Path(__file__).resolve().parents[2]


def _command(data: Path, url: str) -> list[str]:
    return [
        sys.executable, "-m", "tradeleague.cli", "replay", "weights",
        "--market", str(data / "us_equities_daily"), "--symbols", "SPY,QQQ,AAPL",
        "--start", "2026-03-02", "--end", "2026-06-01",
        "--agent", "cash=baseline:cash", "--agent", "hold=baseline:buy_and_hold",
        "--agent", "coin=baseline:coin_flip", "--db", url,
    ]  # fmt: skip


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "200"
    return env


def test_two_concurrent_replays_of_one_season_one_refused(shared_data: Path, db_url: str) -> None:
    """C-4: one writer per season; the record stays whole and resumable."""
    with open_store(db_url):
        pass  # migrate first, so the two commands race on the season, not the schema
    command = _command(shared_data, db_url)
    runs = [
        subprocess.Popen(
            command, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outcomes = [(run.wait(timeout=300), *run.communicate()) for run in runs]
    codes = sorted(code for code, _, _ in outcomes)
    assert codes == [0, 2], outcomes
    (refused,) = [" ".join(err.split()) for code, _, err in outcomes if code == 2]
    winner = next(run.pid for run, (code, _, _) in zip(runs, outcomes, strict=True) if code == 0)
    assert f"is being written by process {winner} on " in refused
    assert "Traceback" not in refused
    with open_store(db_url) as store:
        head = store.head()
        assert verify(store).ok
        kinds = [s.event.kind for s in store.events()]
    assert kinds.count("SeasonStarted") == 1
    again = subprocess.run(
        command, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300, check=False
    )
    assert again.returncode == 0, again.stderr
    with open_store(db_url) as store:
        assert store.head() == head
        assert verify(store).ok
