"""A live-clock host: drill rounds with real sleeping against local peers; /metrics shows them.

The arena's 2 s drill rounds read candles from the local Binance-format candle
server through ccxt and ask a model on the fake provider; SIGTERM finishes
the rounds in flight and the record verifies.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import httpx
from host_helpers import drill_league  # type: ignore[import-not-found]
from host_process import free_port, metric, start_host, stop, wait_for  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import EventKind
from tradeleague.store import open_store, verify
from tradeleague.testing.binance import live_klines_app
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour
from tradeleague.testing.server import serve_asgi

UP = '{"direction": "up", "rationale": "The last candles rose."}'


def test_host_live_clock_plays_drill_rounds_and_serves_metrics(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'live.db'}"
    port = free_port()
    with serve_asgi(live_klines_app()) as exchange, FakeProvider() as fake:
        fake.script_model("fast", Behaviour(text=UP, latency_s=0.05))
        # /healthz and /metrics where the league file says (no --http)
        league = drill_league(
            tmp_path / "league.toml", db, exchange, fake.url, http=f"127.0.0.1:{port}"
        )
        host = start_host(["--config", str(league)], tmp_path / "host.log")
        try:
            wait_for(lambda: metric(port, "tradeleague_rounds_played_total") >= 3, 90,
                     "three rounds on /metrics")  # fmt: skip
            health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()
            assert health["ok"]
            assert health["leader"]
            text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
            assert 'tradeleague_rounds_played_total{format="direction"}' in text
            assert re.search(  # per agent: the format, its name, its provider, the outcome
                r'tradeleague_model_calls_total\{agent="fast",format="direction",'
                r'outcome="answered",provider="[^"]+"\}',
                text,
            )
            assert "tradeleague_model_call_latency_seconds_bucket" in text
            assert "tradeleague_store_append_seconds_count" in text
        finally:
            code = stop(host, signal.SIGTERM)
    log = (tmp_path / "host.log").read_text(encoding="utf-8")
    assert code == 0, log
    for line in log.splitlines():  # stderr holds JSON log lines only
        assert line.startswith("{"), line
    with open_store(db) as store:
        kinds = [(s.event.kind, s.event.payload.get("round")) for s in store.events("direction")]
        assert verify(store).ok
    started = [str(r) for k, r in kinds if k == EventKind.ROUND_STARTED]
    finished = [str(r) for k, r in kinds if k == "RoundFinished"]
    assert len(started) >= 3
    assert sorted(started) == sorted(finished)  # the rounds in flight were finished
    assert len(set(started)) == len(started)
    shown = CliRunner().invoke(app, ["status", "--db", db, "--json"])
    assert shown.exit_code == 0, shown.output
    (entry,) = json.loads(shown.stdout)["formats"]
    assert entry["clock"] == "live"  # a live stream's next slot is on the wall clock
    rates = {a["agent"]: a for a in entry["agents"]}
    assert set(rates) == {"up", "fast"}
    assert all(a["valid"] >= 1 and 0 < a["valid_rate"] <= 1 for a in rates.values()), rates
