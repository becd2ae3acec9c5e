"""Steps per second over loopback HTTP: one run, then 100 concurrent runs, on SQLite.

Starts ``tradeleague serve`` in its own process on 127.0.0.1 with a fresh
SQLite file, provisions a synthetic scenario, and times ``POST .../step``
calls (no orders: the loop's fixed cost). Then it checks every run advanced
exactly the number of steps sent (S-SVC-2: none lost, none doubled). For the
single run, the server's CPU per step over the first and the last tenth of
its steps shows whether a step's cost grows with the run (it should not: a
step appends one equity row and rewrites a small state).

The timed requests go through a minimal keep-alive HTTP/1.1 client on raw
asyncio streams, so the figure is the server's, not a client library's
(``--client httpx`` uses httpx instead, to show what a Python client costs).
CPU seconds of the server and of this process are printed per step: on a
small machine, client and server share the same cores. Usage::

    .venv/bin/python bench/api_steps.py [--steps 2000] [--runs 100] [--per-run 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from tradeleague.accounts import Tier
from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store

Post = Callable[[str], Awaitable[int]]


def _serve_process(db: str) -> tuple[subprocess.Popen[bytes], str, int]:
    """Run ``tradeleague serve`` in its own process, so client and server do not share a GIL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    exe = Path(sys.executable).with_name("tradeleague")
    proc = subprocess.Popen([str(exe), "serve", "--db", db, "--port", str(port)])
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                return proc, url, port
        except httpx.TransportError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the server did not start")


class _RawConnection:
    """One keep-alive HTTP/1.1 connection that POSTs an empty body and reads the reply."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: str):
        self._reader, self._writer = reader, writer
        self._head = f"Host: 127.0.0.1\r\nX-API-Key: {key}\r\nContent-Length: 0\r\n\r\n".encode()

    async def post(self, path: str) -> int:
        self._writer.write(b"POST " + path.encode() + b" HTTP/1.1\r\n" + self._head)
        status = int((await self._reader.readline()).split()[1])
        length = 0
        while (line := await self._reader.readline()) != b"\r\n":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        await self._reader.readexactly(length)
        return status

    def close(self) -> None:
        self._writer.close()


async def _raw(port: int, key: str) -> tuple[Post, Callable[[], None]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = _RawConnection(reader, writer, key)
    return conn.post, conn.close


async def _httpx(url: str, key: str) -> tuple[Post, Callable[[], Awaitable[None]]]:
    client = httpx.AsyncClient(base_url=url, headers={"X-API-Key": key}, timeout=60)

    async def post(path: str) -> int:
        return (await client.post(path)).status_code

    return post, client.aclose


@dataclass(frozen=True)
class Timing:
    """Steps done, wall seconds, and CPU seconds of server and client."""

    steps: int
    wall: float
    server_cpu: float
    client_cpu: float
    tenths: tuple[float, float] | None = None
    """Server CPU seconds per step over the first and the last tenth (one run only)."""

    def line(self, label: str) -> str:
        """Return the printed figures."""
        per = 1000 / self.steps
        out = (
            f"{label}: {self.steps} steps in {self.wall:.2f} s = "
            f"{self.steps / self.wall:,.0f} steps/s  (cpu per step: server "
            f"{self.server_cpu * per:.2f} ms, client {self.client_cpu * per:.2f} ms)"
        )
        if self.tenths is not None:
            first, last = (1000 * t for t in self.tenths)
            out += f"\n  server cpu per step: first tenth {first:.2f} ms, last tenth {last:.2f} ms"
        return out


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _drive(
    url: str, port: int, key: str, scenario: str, runs: int, steps: int, client: str, pid: int
) -> Timing:
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": key}) as setup:
        ids = []
        for _ in range(runs):
            r = await setup.post("/api/v1/runs", json={"scenario": scenario})
            r.raise_for_status()
            ids.append(str(r.json()["id"]))
        conns = [await (_raw(port, key) if client == "raw" else _httpx(url, key)) for _ in ids]

        tenth = max(steps // 10, 1)
        marks: dict[int, float] = {}

        async def one(run_id: str, post: Post) -> None:
            path = f"/api/v1/runs/{run_id}/step"
            for k in range(steps):
                if runs == 1 and k in (0, tenth, steps - tenth):
                    marks[k] = _cpu(pid)
                status = await post(path)
                if status != 200:
                    raise RuntimeError(f"step answered {status}")

        cpu_server, cpu_client = _cpu(pid), _own_cpu()
        start = time.perf_counter()
        await asyncio.gather(*(one(i, c[0]) for i, c in zip(ids, conns, strict=True)))
        wall = time.perf_counter() - start
        end = _cpu(pid)
        tenths = None
        if runs == 1 and len(marks) == 3:
            tenths = (
                (marks[tenth] - marks[0]) / tenth,
                (end - marks[steps - tenth]) / tenth,
            )
        timing = Timing(runs * steps, wall, end - cpu_server, _own_cpu() - cpu_client, tenths)
        for _, close in conns:
            done = close()
            if done is not None:
                await done
        for run_id in ids:
            index = (await setup.get(f"/api/v1/runs/{run_id}/market")).json()["index"]
            if index != steps:
                raise RuntimeError(f"run {run_id} is at bar {index}, not {steps}")
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps of the single run")
    parser.add_argument("--runs", type=int, default=100, help="concurrent runs")
    parser.add_argument("--per-run", type=int, default=30, help="steps of each concurrent run")
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        service = ScenarioService(open_store(db), WallClock())
        symbols = ("AAPL", "SPY", "TSLA")
        bars = max(args.steps, args.per_run) + 2
        data = synthetic_dataset(3, bars, seed=1, symbols=symbols)
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
        server, url, port = _serve_process(db)
        drive = (url, port, key, scenario.id)
        try:
            one = asyncio.run(_drive(*drive, 1, args.steps, args.client, server.pid))
            many = asyncio.run(_drive(*drive, args.runs, args.per_run, args.client, server.pid))
        finally:
            server.terminate()
            server.wait(10)
    print(f"loopback HTTP, SQLite, {args.client} client, {os.cpu_count()} cores")
    print(one.line("one run"))
    print(many.line(f"{args.runs} runs"))
    print(f"every run advanced exactly the steps sent; total {one.steps + many.steps} steps")


if __name__ == "__main__":
    main()
