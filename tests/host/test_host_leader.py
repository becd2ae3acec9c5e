"""One host leads a store: SQLite refuses a second, PostgreSQL keeps a standby that takes over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from host_helpers import drill_league  # type: ignore[import-not-found]
from host_process import SRC, free_port, metric, start_host, stop, wait_for  # type: ignore[import-not-found]

from tradeleague.events import EventKind
from tradeleague.host.leader import Leadership
from tradeleague.store import open_store, verify
from tradeleague.testing.binance import live_klines_app
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour
from tradeleague.testing.server import serve_asgi

UP = '{"direction": "up", "rationale": "The last candles rose."}'


def test_host_second_run_on_sqlite_exits_naming_the_holder(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'one.db'}"
    league = drill_league(tmp_path / "league.toml", db, "http://127.0.0.1:9", "http://127.0.0.1:9")
    with open_store(db) as store:
        leadership = Leadership(store)
        assert leadership.try_lead()
        try:
            result = subprocess.run(
                [sys.executable, "-m", "tradeleague.cli", "run", "--config", str(league)],
                capture_output=True, text=True, timeout=120,
                env={**os.environ, "PYTHONPATH": str(SRC)},
            )  # fmt: skip
        finally:
            leadership.release()
    assert result.returncode == 2, result.stderr
    assert f"pid={os.getpid()}" in result.stderr
    assert "SQLite" in result.stderr
    assert not (tmp_path / "one.db.host-lock").exists()  # released: nothing left (issue 30)
    with open_store(db) as store:  # the next host leads on a fresh lock file
        again = Leadership(store)
        assert again.try_lead()
        assert (tmp_path / "one.db.host-lock").is_file()
        again.release()
    assert not (tmp_path / "one.db.host-lock").exists()


def test_host_postgresql_leadership_names_its_holder_per_database(
    pg_url: str, pg_server_url: str
) -> None:
    """A standby names the process that leads its own database; another league's host on
    the same server (its own database, its own lock) neither blocks it nor is named."""
    import uuid

    import sqlalchemy as sa

    other = f"tl_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(pg_server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{other}"'))
    try:
        with open_store(f"{pg_server_url.rpartition('/')[0]}/{other}") as elsewhere:
            theirs = Leadership(elsewhere)
            assert theirs.try_lead()  # another league leads its own database
            with open_store(pg_url) as store:
                mine, standby = Leadership(store), Leadership(store)
                assert standby.holder() == "unknown"  # nobody leads this one
                assert mine.try_lead()
                assert not standby.try_lead()
                assert standby.holder().startswith(f"tradeleague-host pid={os.getpid()} ")
                mine.release()
                assert standby.try_lead()
                standby.release()
            theirs.release()
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{other}" WITH (FORCE)'))
        admin.dispose()


def test_host_standby_on_postgresql_takes_over_without_playing_a_slot_twice(
    pg_url: str, tmp_path: Path
) -> None:
    with serve_asgi(live_klines_app()) as exchange, FakeProvider() as fake:
        fake.script_model("fast", Behaviour(text=UP, latency_s=0.3))
        league = drill_league(tmp_path / "league.toml", pg_url, exchange, fake.url)
        ports = [free_port(), free_port()]
        hosts = [
            start_host(
                ["--config", str(league), "--http", f"127.0.0.1:{p}"], tmp_path / f"host{i}.log"
            )
            for i, p in enumerate(ports)
        ]
        try:
            wait_for(
                lambda: max(metric(p, "tradeleague_rounds_played_total") for p in ports) >= 2,
                90, "a leader playing rounds",
            )  # fmt: skip
            played = [metric(p, "tradeleague_rounds_played_total") for p in ports]
            leader = 0 if played[0] >= 2 else 1
            standby = 1 - leader
            assert played[standby] == 0
            time.sleep(0.5)  # mid-round: a drill round lasts 2 s and settles after
            assert stop(hosts[leader], signal.SIGKILL) == -signal.SIGKILL
            killed = time.monotonic()
            wait_for(lambda: metric(ports[standby], "tradeleague_rounds_played_total") >= 1,
                     30, "the standby to lead")  # fmt: skip
            assert time.monotonic() - killed < 30
            time.sleep(3)
            assert stop(hosts[standby], signal.SIGTERM) == 0
        finally:
            for host in hosts:
                if host.poll() is None:
                    host.kill()
                    host.wait()
    with open_store(pg_url) as store:
        events = [s.event for s in store.events("direction")]
        assert verify(store).ok
    started = [str(e.payload["round"]) for e in events if e.kind == EventKind.ROUND_STARTED]
    assert len(started) == len(set(started)), "no slot played twice"
    finished = [str(e.payload["round"]) for e in events if e.kind == "RoundFinished"]
    assert sorted(started) == sorted(finished)
