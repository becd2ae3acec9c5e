"""Restart-safety: ``kill -9`` of the host at random moments, each followed by a restart.

Live clock: every slot is played at most once; the slots whose time passed
while the host was down are recorded as missed (``host_down``), never played
late; a round cut mid-way is voided once. Replay clock: five kills at random
moments, each restart resumes, and the record ends as an uninterrupted run's.
``verify`` passes after both.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

from host_helpers import drill_league, replay_league  # type: ignore[import-not-found]
from host_process import free_port, metric, start_host, stop, wait_for  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import EventKind
from tradeleague.events.host import HOST_DOWN, SLOT_MISSED
from tradeleague.store import open_store, verify
from tradeleague.testing.binance import live_klines_app
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour
from tradeleague.testing.server import serve_asgi

UP = '{"direction": "up", "rationale": "The last candles rose."}'
SPAN = ["--from", "2025-09-02T14:00Z", "--to", "2025-09-02T20:00Z"]  # weights 15..19 UTC


def test_host_kill_9_live_clock_plays_each_slot_once_and_records_the_rest_missed(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'live.db'}"
    rng = random.Random(12)
    with serve_asgi(live_klines_app()) as exchange, FakeProvider() as fake:
        fake.script_model("fast", Behaviour(text=UP, latency_s=0.05))
        league = drill_league(tmp_path / "league.toml", db, exchange, fake.url)
        for attempt in range(6):
            port = free_port()
            host = start_host(["--config", str(league), "--http", f"127.0.0.1:{port}"],
                              tmp_path / "host.log")  # fmt: skip
            wait_for(lambda p=port: metric(p, "tradeleague_rounds_played_total") >= 1, 60,
                     "a round")  # fmt: skip
            if attempt:  # a restart records the slots that passed while no host ran
                assert metric(port, "tradeleague_rounds_missed_total") >= 1, attempt
            time.sleep(rng.uniform(0.0, 2.0))  # anywhere in a 2 s drill round
            if attempt < 5:
                assert stop(host, signal.SIGKILL) == -signal.SIGKILL
                time.sleep(rng.uniform(2.1, 3.0))  # a 2 s slot passes while no host runs
            else:
                assert stop(host, signal.SIGTERM) == 0
    with open_store(db) as store:
        events = [s.event for s in store.events("direction")]
        host_events = [s.event for s in store.events("host/direction")]
        assert verify(store).ok
    started = [str(e.payload["round"]) for e in events if e.kind == EventKind.ROUND_STARTED]
    finished = [str(e.payload["round"]) for e in events if e.kind == "RoundFinished"]
    assert len(started) == len(set(started))  # every slot played at most once
    assert sorted(started) == sorted(finished)  # cut rounds were voided and finished, once
    assert {e.kind for e in host_events} == {SLOT_MISSED}
    missed = [e.payload for e in host_events]
    assert missed, "the slots passed while the host was down are recorded"
    assert all(m["reason"] == HOST_DOWN for m in missed)
    slots = [m["slot"] for m in missed]
    assert len(slots) == len(set(slots))
    opened = {e.payload["open_at"] for e in events if e.kind == EventKind.ROUND_STARTED}
    assert not opened & set(slots), "a missed slot was never played late"


def _events(db: str) -> int:
    with open_store(db) as store:
        return store.count()


def test_host_kill_9_replay_clock_resumes_to_the_uninterrupted_record(
    shared_data: Path, tmp_path: Path
) -> None:
    whole_db = f"sqlite:///{tmp_path / 'whole.db'}"
    whole = replay_league(tmp_path / "whole.toml", shared_data, whole_db)
    result = CliRunner().invoke(app, ["run", "--config", str(whole), "--clock", "replay", *SPAN])
    assert result.exit_code == 0, result.output

    with open_store(whole_db) as store:
        total = store.count()
    cut_db = f"sqlite:///{tmp_path / 'cut.db'}"
    cut = replay_league(tmp_path / "cut.toml", shared_data, cut_db)
    rng = random.Random(5)
    args = ["--config", str(cut), "--clock", "replay", *SPAN]
    # five random moments (counted in events) in the first 70% of the record, each
    # at least a few events past where the last start left off, so each kill cuts
    # a running replay and each later start resumes a part-written one
    moments = sorted(rng.sample(range(total // 10, total * 7 // 10), 5))
    # The kill comes from inside the host, in the append that crosses the moment: a
    # poll from outside let a fast replay run to its end before the signal landed.
    for moment in moments:
        target = max(moment, _events(cut_db) + 20)
        host = start_host(args, tmp_path / "cut.log", killed_at=target)
        assert host.wait(timeout=300) == -signal.SIGKILL, "the replay ended before its kill"
        assert _events(cut_db) < min(target, total), "each kill cut the replay short"
    host = start_host(args, tmp_path / "cut.log")
    assert host.wait(timeout=300) == 0, (tmp_path / "cut.log").read_text(encoding="utf-8")

    with open_store(whole_db) as a, open_store(cut_db) as b:
        assert verify(b).ok
        for stream in ("weights/W1", "direction"):
            left = [(s.event.id, s.event.kind, s.event.payload) for s in a.events(stream)]
            right = [(s.event.id, s.event.kind, s.event.payload) for s in b.events(stream)]
            assert left == right, stream
            started = [
                str(s.event.payload["round"])
                for s in b.events(stream)
                if s.event.kind == EventKind.ROUND_STARTED
            ]
            # each slot played once: weights 15..19 UTC, a direction round every 5 minutes
            assert len(started) == len(set(started)) == {"weights/W1": 5, "direction": 72}[stream]
