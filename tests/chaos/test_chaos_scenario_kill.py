"""The scenario service killed with ``kill -9`` mid-step, restarted: the run goes on (C-4, S-SVC-2).

``tradeleague serve`` runs in a subprocess on a SQLite file. An agent trades and
steps; at a seeded random moment a step is sent and the server is killed while
it may be in flight. Restarted on the same database, the agent reads where its
run stands and carries on to the end. Each step is one transaction, so the run
is either before or after the killed step, never between; its results equal an
uninterrupted run's with the same orders, and ``verify`` passes.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tradeleague.accounts import Tier
from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store, verify
from tradeleague.testing.ports import listen_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SYMBOLS = ("AAPL", "SPY", "TSLA")
START, END = datetime(2024, 1, 2, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
BARS = 40


@contextmanager
def _server(url: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = listen_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, "-m", "tradeleague.cli", "serve", "--db", url, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, "the server exited on start"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield process, base
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def _orders(index: int) -> list[dict[str, object]]:
    """Buy 3 of a symbol, sell them at the next bar: every order can fill when placed."""
    symbol = SYMBOLS[(index // 2) % len(SYMBOLS)]
    return [{"symbol": symbol, "side": "buy" if index % 2 == 0 else "sell", "quantity": 3}]


def _advance(client: httpx.Client, run_id: str, index: int) -> bool:
    """Queue the orders for bar ``index`` and step once; return whether the run is done."""
    trade = client.post(f"/api/v1/runs/{run_id}/trades", json={"orders": _orders(index)})
    assert trade.status_code == 200, trade.text
    step = client.post(f"/api/v1/runs/{run_id}/step")
    assert step.status_code == 200, step.text
    return bool(step.json()["done"])


def _index(client: httpx.Client, run_id: str) -> int:
    market = client.get(f"/api/v1/runs/{run_id}/market")
    assert market.status_code == 200, market.text
    return int(market.json()["index"])


def _setup(url: str) -> tuple[str, str]:
    service = ScenarioService(open_store(url), WallClock())
    try:
        data = synthetic_dataset(len(SYMBOLS), BARS, seed=11, symbols=SYMBOLS)
        scenario = provision_from_market(service, "kill", data, SYMBOLS, START, END)
        return scenario.id, service.create_key("agent", Tier.PRO)
    finally:
        service.store.close()


def _results(client: httpx.Client, run_id: str) -> dict[str, object]:
    got = client.get(f"/api/v1/runs/{run_id}/results").json()
    return {k: v for k, v in got.items() if k not in ("run_id", "id")}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_killed_scenario_service_resumes_the_run(tmp_path: Path, seed: int) -> None:
    """C-4, S-SVC-2: kill -9 mid-step, restart, continue: same results as uninterrupted."""
    rng = random.Random(seed)
    url = f"sqlite:///{tmp_path / 'service.db'}"
    scenario, key = _setup(url)
    headers = {"X-API-Key": key}
    kill_at = rng.randrange(2, BARS - 3)
    with _server(url) as (process, base), httpx.Client(base_url=base, headers=headers) as client:
        whole = client.post("/api/v1/runs", json={"scenario": scenario}).json()["id"]
        index = 0
        while not _advance(client, whole, index):
            index += 1
        expected = _results(client, whole)
        run_id = client.post("/api/v1/runs", json={"scenario": scenario}).json()["id"]
        for index in range(kill_at):
            assert not _advance(client, run_id, index)
        trade = client.post(f"/api/v1/runs/{run_id}/trades", json={"orders": _orders(kill_at)})
        assert trade.status_code == 200

        def step() -> None:
            with contextlib.suppress(httpx.TransportError):  # killed under it
                client.post(f"/api/v1/runs/{run_id}/step", timeout=5)

        in_flight = threading.Thread(target=step)
        in_flight.start()
        time.sleep(rng.uniform(0, 0.02))
        os.kill(process.pid, signal.SIGKILL)
        in_flight.join(10)
    with _server(url) as (_, base), httpx.Client(base_url=base, headers=headers) as client:
        index = _index(client, run_id)
        assert index in (kill_at, kill_at + 1), "the killed step happened wholly or not at all"
        if index == kill_at:  # not stepped: its queued orders are still there; step them
            step_again = client.post(f"/api/v1/runs/{run_id}/step")
            assert step_again.status_code == 200, step_again.text
            index += 1
        while not _advance(client, run_id, index):
            index += 1
        assert _results(client, run_id) == expected
    with open_store(url) as store:
        report = verify(store)
    assert report.ok, report.mismatches
