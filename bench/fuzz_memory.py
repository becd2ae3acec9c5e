"""Memory under fuzzing: `tradeleague serve`'s resident memory while schemathesis runs.

Issue 24 item 7: a 4-minute schemathesis run grew the server from 208 to
416 MB. This starts ``tradeleague serve`` on a fresh SQLite store (a synthetic
scenario and a Pro key in it) in its own process, then runs schemathesis's
engine over the server's ``/openapi.json`` (every phase, every check, a new
seed each pass) until ``--seconds`` have passed, sampling the server's RSS
every second. It prints the RSS at the start (after one warm-up pass), its
peak and its end, the growth over the run, and the requests made. Loopback
only; figures only, nothing is asserted. Usage::

    .venv/bin/python bench/fuzz_memory.py [--seconds 240] [--examples 20]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from tradeleague.accounts import Tier
from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store

SYMBOLS = ("AAPL", "SPY", "TSLA")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _build(db: str) -> str:
    """Provision a scenario and return a Pro key."""
    service = ScenarioService(open_store(db), WallClock())
    try:
        data = synthetic_dataset(len(SYMBOLS), 60, seed=5, symbols=SYMBOLS)
        provision_from_market(
            service,
            "fuzz",
            data,
            SYMBOLS,
            datetime(2024, 1, 2, tzinfo=UTC),
            datetime(2025, 1, 1, tzinfo=UTC),
        )
        return service.create_key("fuzzer", Tier.PRO)
    finally:
        service.store.close()


def _serve(db: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    cmd = [sys.executable, "-m", "tradeleague.cli", "serve", "--db", db, "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/healthz").status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def _fuzz_once(base: str, key: str, seed: int, examples: int, stop: float) -> int:
    """Run schemathesis's engine once over the server; return the requests it made."""
    import schemathesis
    from schemathesis.engine import events, from_schema

    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    schema.config.update(headers={"X-API-Key": key})
    schema.config.generation.update(max_examples=examples)
    schema.config.seed = seed
    made = 0
    stream = from_schema(schema).execute()
    for event in stream:
        if isinstance(event, events.ScenarioFinished):
            made += len(event.recorder.interactions)
        if time.monotonic() >= stop:
            stream.stop()
            break
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--examples", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'fuzz.db'}"
        key = _build(db)
        server, base = _serve(db)
        samples: list[float] = []
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                samples.append(_rss_mib(server.pid))
                done.wait(1.0)

        try:
            made = _fuzz_once(base, key, 0, 3, time.monotonic() + 120)  # warm-up pass
            start = _rss_mib(server.pid)
            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            began = time.monotonic()
            stop = began + args.seconds
            seed = 1
            while time.monotonic() < stop:
                made += _fuzz_once(base, key, seed, args.examples, stop)
                seed += 1
            took = time.monotonic() - began
            done.set()
            watcher.join()
            end = _rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(10)
    peak = max(samples, default=end)
    tenths = [samples[len(samples) * k // 10] for k in range(10) if samples]
    print(
        f"fuzz memory: {took:.0f} s of schemathesis ({seed - 1} passes, {made:,} requests): "
        f"server RSS start {start:.0f} MiB, peak {peak:.0f}, end {end:.0f}, "
        f"growth {peak - start:+.0f} MiB (target: within 50 MiB of the start)"
    )
    print("server RSS each tenth (MiB): " + " ".join(f"{m:.0f}" for m in [*tenths, end]))


if __name__ == "__main__":
    main()
