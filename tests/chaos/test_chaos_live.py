"""``kill -9`` of a live arena mid-round, then a restart on the same record (C-4, C-8, D-SKP-1).

A process runs the live loop (``run_live``: 2 s drill rounds on the wall
clock, candles from the local Binance-format server, the paper broker) and is
killed with SIGKILL while a round holds placed trades. Started again on the
same database, the arena goes on from the record: the same season (not a new
S1), round numbering after the cut, balances as recorded (not the starting
balance), and every round cut by the kill voided with its stakes back and
finished exactly once. ``verify`` passes on the result.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chaos_helpers import child_env, run_to_end  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.formats.direction.restart import CUT_DETAIL
from tradeleague.formats.direction.skips import LEAGUE_FAULT
from tradeleague.testing.binance import live_klines_app
from tradeleague.testing.server import serve_asgi

CHILD = Path(__file__).with_name("live_child.py")


@pytest.fixture
def exchange() -> Iterator[str]:
    with serve_asgi(live_klines_app()) as url:
        yield url


def _log(db: Path) -> list[tuple[str, dict[str, Any]]]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            rows = conn.execute("SELECT kind, payload FROM events ORDER BY seq").fetchall()
    except sqlite3.Error:
        return []
    return [(str(k), json.loads(p)) for k, p in rows]


def _cut_with_trades(log: list[tuple[str, dict[str, Any]]]) -> bool:
    """Return whether a round holds placed trades, unfinished, after two finished rounds."""
    finished = {p["round"] for k, p in log if k == "RoundFinished"}
    placed = {p["round"] for k, p in log if k == "TradePlaced"}
    return len(finished) >= 2 and bool(placed - finished)


def test_chaos_live_arena_killed_mid_round_goes_on_from_the_record(
    exchange: str, tmp_path: Path
) -> None:
    """C-4, C-8, D-SKP-1, D-TRD-3: SIGKILL mid-round; the restart continues, voids the cut once."""
    db = tmp_path / "live.db"
    argv = [sys.executable, str(CHILD), exchange, f"sqlite:///{db}"]
    with subprocess.Popen(
        [*argv, "40"], env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as child:
        deadline = time.monotonic() + 60
        try:
            while not _cut_with_trades(_log(db)):
                assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
                assert time.monotonic() < deadline, "no round with trades in time"
                time.sleep(0.02)
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(10)
    before = _log(db)
    finished_before = {p["round"] for k, p in before if k == "RoundFinished"}
    cut = [
        p["round"] for k, p in before if k == "RoundStarted" and p["round"] not in finished_before
    ]
    assert cut
    last_balances = next(p["balances"] for k, p in reversed(before) if k == "RoundFinished")

    run_to_end([*argv, "3"])

    log = _log(db)
    assert [k for k, _ in log].count("SeasonStarted") == 1
    assert {p["season"] for _, p in log} == {"S1"}
    opened = [(p["open_at"], p["round"]) for k, p in log if k == "RoundStarted"]
    started = [rid for _, rid in opened]
    assert len(started) == len(set(started)) >= len(finished_before) + len(cut) + 3
    # rounds follow their open times (ids on a whole minute are shorter, so compare times)
    assert sorted(opened) == opened
    finished = [p for k, p in log if k == "RoundFinished"]
    assert sorted(p["round"] for p in finished) == sorted(started)  # each finished, once
    for rid in cut:
        voided = [p for k, p in log if k == "RoundVoided" and p["round"] == rid]
        assert len(voided) == 1
        assert voided[0]["reason"] == LEAGUE_FAULT
        assert CUT_DETAIL in str(voided[0]["detail"])
    # Balances go on from the record: never back to the starting balance, and at
    # the end each is the start plus the P&L of every trade of a round not voided.
    start = int(next(p for k, p in log if k == "SeasonStarted")["start_balance"])
    assert any(int(b) != start for b in last_balances.values())
    first_after = next(p for p in finished if p["round"] not in finished_before)
    assert any(int(b) != start for b in first_after["balances"].values())
    void = {p["round"] for k, p in log if k == "RoundVoided"}
    pnl: dict[str, int] = {}
    for k, p in log:
        if k == "TradeSettled" and p["round"] not in void:
            pnl[p["agent"]] = pnl.get(p["agent"], 0) + int(p["pnl"])
    for name, balance in finished[-1]["balances"].items():
        assert int(balance) == start + pnl.get(name, 0), name
    verified = CliRunner().invoke(app, ["verify", "--db", f"sqlite:///{db}"])
    assert verified.exit_code == 0, verified.output
