"""Steps per second over loopback HTTP: one run, then 100 concurrent runs, on SQLite.

Starts ``tradeleague``'s REST app under uvicorn on 127.0.0.1 with a fresh
SQLite file, provisions a synthetic scenario, and times ``POST .../step``
calls (no orders: the loop's fixed cost). Usage::

    .venv/bin/python bench/api_steps.py [--steps 2000] [--runs 100] [--per-run 30]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import uvicorn

from tradeleague.api import ScenarioService, create_app
from tradeleague.api.service import Tier, provision_from_market
from tradeleague.clock import WallClock
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store


def _serve(service: ScenarioService) -> tuple[uvicorn.Server, str]:
    config = uvicorn.Config(
        create_app(service), host="127.0.0.1", port=0, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}"


def _serve_process(db: str) -> tuple[subprocess.Popen[bytes], str]:
    """Run ``tradeleague serve`` in its own process, so client and server do not share a GIL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    exe = Path(sys.executable).with_name("tradeleague")
    proc = subprocess.Popen([str(exe), "serve", "--db", db, "--port", str(port)])
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the server did not start")


async def _drive(url: str, key: str, scenario: str, runs: int, steps: int) -> float:
    limits = httpx.Limits(max_connections=runs, max_keepalive_connections=runs)
    async with httpx.AsyncClient(
        base_url=url + "/api/v1", headers={"X-API-Key": key}, limits=limits, timeout=60
    ) as client:
        ids = []
        for _ in range(runs):
            r = await client.post("/runs", json={"scenario": scenario})
            r.raise_for_status()
            ids.append(r.json()["id"])

        async def one(run_id: str) -> None:
            for _ in range(steps):
                r = await client.post(f"/runs/{run_id}/step")
                r.raise_for_status()

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in ids))
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000, help="steps of the single run")
    parser.add_argument("--runs", type=int, default=100, help="concurrent runs")
    parser.add_argument("--per-run", type=int, default=30, help="steps of each concurrent run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        service = ScenarioService(open_store(f"sqlite:///{Path(tmp) / 'bench.db'}"), WallClock())
        symbols = ("AAPL", "SPY", "TSLA")
        data = synthetic_dataset(3, args.steps + 2, seed=1, symbols=symbols)
        scenario = provision_from_market(
            service,
            "bench",
            data,
            symbols,
            datetime(2000, 1, 1, tzinfo=UTC),
            datetime(2100, 1, 1, tzinfo=UTC),
        )
        key = service.create_key("bench", Tier.PRO)
        service.store.close()
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        server, url = _serve_process(db)
        try:
            one = asyncio.run(_drive(url, key, scenario.id, 1, args.steps))
            many = asyncio.run(_drive(url, key, scenario.id, args.runs, args.per_run))
        finally:
            server.terminate()
            server.wait(10)
    total = args.runs * args.per_run
    print(f"one run:   {args.steps} steps in {one:.2f} s = {args.steps / one:,.0f} steps/s")
    print(f"{args.runs} runs: {total} steps in {many:.2f} s = {total / many:,.0f} steps/s total")


if __name__ == "__main__":
    main()
