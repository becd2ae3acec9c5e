"""Two writers of one season: the second is refused, the record stays whole (C-4).

Real subprocesses, as an operator would start them. Two checks:

- a holder that is known to hold the season (this test process, claiming the
  season's stream as a running replay does) makes the replay command refuse at
  its first append, before it writes anything, with a message naming the
  holder; once the holder lets go, the same command runs the season;
- two identical commands started at once never write the season twice: each
  either writes or is refused naming the winner, whichever way the race goes
  (a fast machine may finish the first before the second starts; then the
  second resumes a complete season and writes nothing), the season verifies,
  and the command run again afterwards writes nothing more.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
from datetime import date
from pathlib import Path

import pytest
import sqlalchemy as sa

from tradeleague.errors import StoreError
from tradeleague.events.weights import season_stream
from tradeleague.formats.weights import Division
from tradeleague.league.weights.replay import replay_season_id
from tradeleague.store import open_store, verify

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]

ROOT = Path(__file__).resolve().parents[2]
START, END = date(2026, 3, 2), date(2026, 6, 1)


def _command(data: Path, url: str) -> list[str]:
    return [
        sys.executable, "-m", "tradeleague.cli", "replay", "weights",
        "--market", str(data / "us_equities_daily"), "--symbols", "SPY,QQQ,AAPL",
        "--start", START.isoformat(), "--end", END.isoformat(),
        "--agent", "cash=baseline:cash", "--agent", "hold=baseline:buy_and_hold",
        "--agent", "coin=baseline:coin_flip", "--db", url,
    ]  # fmt: skip


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "200"
    return env


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300, check=False
    )


def _season() -> str:
    return replay_season_id("us_equities_daily", START, END, Division.OPEN)


def test_a_held_season_refuses_a_second_writer(shared_data: Path, db_url: str) -> None:
    """C-4: while another process writes the season, the replay is refused and writes nothing."""
    command = _command(shared_data, db_url)
    with open_store(db_url) as holder:
        holder.deriving_ids().claim(season_stream(_season()))
        refused = _run(command)
        assert holder.head().seq == 0  # nothing written by the refused command
    assert refused.returncode == 2, refused.stderr
    message = " ".join(refused.stderr.split())
    assert f"is being written by process {os.getpid()} on {socket.gethostname()}" in message
    assert "run this again to resume" in message
    assert "Traceback" not in message
    done = _run(command)  # the holder closed its store: the lock died with it
    assert done.returncode == 0, done.stderr
    with open_store(db_url) as store:
        assert verify(store).ok
        assert [s.event.kind for s in store.events()].count("SeasonStarted") == 1


def test_two_concurrent_replays_of_one_season_write_it_once(shared_data: Path, db_url: str) -> None:
    """C-4: one writer per season, whichever way a race goes; the record stays whole."""
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
    codes = [code for code, _, _ in outcomes]
    assert sorted(codes) in ([0, 0], [0, 2]), outcomes
    for run, (code, _, err) in zip(runs, outcomes, strict=True):
        if code == 2:  # refused: it names the other command, which wrote the season
            (winner,) = [other.pid for other in runs if other is not run]
            refused = " ".join(err.split())
            assert f"is being written by process {winner} on " in refused
            assert "Traceback" not in refused
    with open_store(db_url) as store:
        head = store.head()
        assert verify(store).ok
        kinds = [s.event.kind for s in store.events()]
    assert kinds.count("SeasonStarted") == 1
    assert kinds.count("RoundFinished") == 63  # every trading day of the span, once
    again = _run(command)
    assert again.returncode == 0, again.stderr
    with open_store(db_url) as store:
        assert store.head() == head
        assert verify(store).ok


def test_a_claim_refused_mid_claim_names_the_winner_not_an_earlier_holder(pg_url: str) -> None:
    """C-4: a claim refused while the winner is between its lock and its record names the winner.

    The winner is played by hand: it takes the stream's gate and lock and has
    not yet written its holder row, while an earlier holder's row is still in
    the table. The claimant waits at the gate and then names the winner.
    """
    stream = season_stream(_season())
    with open_store(pg_url) as earlier:
        earlier.deriving_ids().claim(stream)  # leaves its row behind when it lets go
    digest = hashlib.sha256(stream.encode("utf-8")).digest()
    key, gate = (int.from_bytes(digest[a : a + 8], "big", signed=True) for a in (0, 8))
    engine = sa.create_engine(pg_url)
    refusals: list[str] = []
    with open_store(pg_url) as claimant, engine.connect() as winner:
        winner.begin()
        winner.execute(sa.text("SELECT pg_advisory_xact_lock(:g)"), {"g": gate})
        winner.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key})

        def claim() -> None:
            try:
                claimant.deriving_ids().claim(stream)
            except StoreError as refused:
                refusals.append(str(refused))

        waiting = threading.Thread(target=claim)
        waiting.start()
        waiting.join(timeout=1.0)
        assert waiting.is_alive()  # held at the gate while the winner has no row yet
        winner.execute(sa.text("DELETE FROM stream_writers WHERE stream = :s"), {"s": stream})
        winner.execute(
            sa.text("INSERT INTO stream_writers (stream, holder, since) VALUES (:s, :h, now())"),
            {"s": stream, "h": "process 4242 on the-winner"},
        )
        winner.commit()
        waiting.join(timeout=30)
        assert not waiting.is_alive()
    engine.dispose()
    (message,) = refusals
    assert "is being written by process 4242 on the-winner (since " in message
