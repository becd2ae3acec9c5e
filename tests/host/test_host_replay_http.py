"""Under the replay clock too, ``tradeleague run --http`` serves /healthz and /metrics.

The arena's model answers on the fake provider after a real second, so the
replay of a few rounds lasts long enough to be read from outside while it runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from host_process import free_port, metric, start_host, wait_for  # type: ignore[import-not-found]

from tradeleague.events import EventKind
from tradeleague.store import open_store, verify
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour

UP = '{"direction": "up", "rationale": "The last candles rose."}'


def _healthy(port: int) -> bool:
    try:
        response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
    except httpx.HTTPError:
        return False
    body = response.json()
    return response.status_code == 200 and body["ok"] is True and body["leader"] is True


def test_host_replay_clock_serves_healthz_and_metrics(shared_data: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'replay.db'}"
    port = free_port()
    with FakeProvider() as fake:
        fake.script_model("slow", Behaviour(text=UP, latency_s=1.0))
        league = tmp_path / "league.toml"
        league.write_text(
            f"""
[league]
db = "{db}"

[direction]
market = "{shared_data / "crypto_1m"}"

[[direction.agents]]
name = "slow"
spec = "openai:slow@{fake.url},key_env=FAKE_KEY"

[providers.fake]
key_env = "FAKE_KEY"
""",
            encoding="utf-8",
        )
        log = tmp_path / "host.log"
        host = start_host(
            ["--config", str(league), "--clock", "replay", "--from", "2025-09-02T00:00Z",
             "--to", "2025-09-02T00:30Z", "--http", f"127.0.0.1:{port}"],
            log,
        )  # fmt: skip
        try:
            wait_for(lambda: _healthy(port), 60, "/healthz under the replay clock")
            wait_for(lambda: metric(port, "tradeleague_rounds_played_total") >= 1, 60,
                     "a replayed round on /metrics")  # fmt: skip
            text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
            assert 'tradeleague_rounds_played_total{format="direction"}' in text
            assert re.search(  # per agent: the format, its name, its provider, the outcome
                r'tradeleague_model_calls_total\{agent="slow",format="direction",'
                r'outcome="answered",provider="[^"]+"\}',
                text,
            )
            assert host.poll() is None, "the replay was read while it ran"
        finally:
            code = host.wait(timeout=120)
    assert code == 0, log.read_text(encoding="utf-8")
    with open_store(db) as store:
        started = [
            s.event.payload["round"]
            for s in store.events("direction")
            if s.event.kind == EventKind.ROUND_STARTED
        ]
        assert verify(store).ok
    assert len(started) == 6 == len(set(started))  # 00:00 to 00:25, every five minutes
