"""Load: 100 concurrent readers of every board page and 200 scenario clients at once.

Builds a store on a fresh SQLite file (a weights, a direction and a thesis
season replayed from ``../shared/data`` when it is there, a synthetic scenario
with published runs), starts ``tradeleague serve`` on 127.0.0.1 in its own
process, checks each page answers once, and then, for at most ``--seconds``:

- ``--readers`` clients each read every board page and JSON board in turn
  (indexes, seasons, agents, rounds, models, methodology, scenario boards and
  a published run);
- ``--clients`` scenario agents each create a run, trade and step it;
- a prober, in a process of its own, asks ``/healthz`` and ``/metrics`` in
  turn, every 50 ms.

With ``--store postgresql`` the store is a fresh database on the PostgreSQL
server of the test suite (``tradeleague.testing.env.find_postgres``, or
``--pg URL``), dropped afterwards: the case of issue 24, 200 scenario clients
stepping on PostgreSQL (``--readers 0``) while ``/healthz`` and ``/metrics``
must stay fast (p99 under 50 ms).

It prints ``/healthz`` and ``/metrics`` p50/p99/max, the requests served and failed by kind,
and the server's resident memory before, at its peak and after. Then, with
the prober running again, ``--hostile`` senders send the hostile corpus
(``tradeleague.testing.hostile``: deep JSON, a gzip bomb, 50 MB bodies,
surrogates, huge numbers, to every route that reads a body) three times through,
and it prints ``/healthz`` over that phase and the answers by status (each
should be a 4xx). Loopback only, bounded in clients and time; figures only,
nothing is asserted. Usage::

    .venv/bin/python bench/load.py [--readers 100] [--clients 200] [--seconds 60] [--hostile 4]
    .venv/bin/python bench/load.py --store postgresql --readers 0 --clients 200 --hostile 0
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from tradeleague.accounts import Tier
from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store
from tradeleague.testing.env import find_postgres
from tradeleague.testing.hostile import hostile_corpus

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
SYMBOLS = ("AAPL", "SPY", "TSLA")
HOSTILE_PASSES = 3  # times through the hostile corpus (about 170 requests a pass)


def _cli(*args: str) -> None:
    subprocess.run(  # loopback-free: a replay from local files
        [sys.executable, "-m", "tradeleague.cli", *args],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200"},
    )


# Pages that need no season: the indexes, the methodology pages, the API's own.
_ALWAYS = (
    "/",
    "/weights",
    "/direction",
    "/scenarios",
    "/thesis",
    "/methodology/weights",
    "/methodology/direction",
    "/methodology/scenario",
    "/methodology/thesis",
    "/api/v1",
    "/api/v1/limits",
    "/api/v1/weights",
    "/api/v1/weights/changelog",
    "/api/v1/direction",
    "/api/v1/direction/changelog",
    "/api/v1/thesis",
    "/api/v1/leaderboard/scenarios",
    "/api/v1/scenario/changelog",
)


def _latest_round(db: str) -> str | None:
    """Return the id of the direction arena's latest round in ``db``, if it has one."""
    from tradeleague.league.direction.reads import DirectionReads  # the server's own read model

    store = open_store(db)
    try:
        rounds = DirectionReads(store, stream="direction").rounds(None, 1)["rounds"]
    finally:
        store.close()
    return str(rounds[0]["round"]) if rounds else None


def _build(db: str, published: int, leagues: bool = True) -> tuple[str, list[str], list[str]]:
    """Fill the store; return the scenario id, the page paths and API keys for the clients.

    ``leagues=False`` (no readers) replays no league season: the scenario only.

    The pages are every board page and JSON board the site serves for what was
    built: each format's index, season, agent and methodology pages, the
    direction arena's round and model pages, the scenario board and a
    published run, and the JSON each is drawn from.
    """
    pages = list(_ALWAYS)
    daily, minutes, four_hour = (
        SHARED / "us_equities_daily",
        SHARED / "crypto_1m",
        SHARED / "crypto_4h",
    )
    if not leagues:
        daily = minutes = four_hour = Path("/nonexistent")
    if daily.is_dir():
        _cli(
            "replay", "weights", "--market", str(daily),
            "--symbols", "SPY,QQQ,AAPL,MSFT,SGOV", "--start", "2026-03-02", "--end", "2026-07-01",
            "--season", "load", "--agent", "hold=baseline:buy_and_hold",
            "--agent", "coin=baseline:coin_flip", "--agent", "momentum=baseline:momentum",
            "--db", db,
        )  # fmt: skip
        pages += [
            "/weights/load",
            "/weights/load/market",
            "/weights/load/agents/coin",
            "/api/v1/weights/seasons/load",
            "/api/v1/weights/seasons/load/tables/open",
            "/api/v1/weights/seasons/load/agents/hold",
            "/api/v1/weights/seasons/load/market",
            "/api/v1/weights/seasons/load/universe",
            "/api/v1/weights/universe",
        ]
    if minutes.is_dir():
        _cli(
            "replay", "direction", "--market", str(minutes),
            "--start", "2025-10-01T06:00Z", "--end", "2025-10-01T08:00Z",
            "--agent", "up=baseline:up", "--agent", "coin=baseline:coin_flip", "--db", db,
        )  # fmt: skip
        pages += [
            "/direction/models/up",
            "/direction/visitors",
            "/api/v1/direction/boards",
            "/api/v1/direction/rounds",
            "/api/v1/direction/config",
            "/api/v1/direction/visitors",
            "/api/v1/direction/models/coin/log",
        ]
        latest = _latest_round(db)
        if latest is not None:
            pages += [f"/direction/rounds/{latest}", f"/api/v1/direction/rounds/{latest}"]
    if four_hour.is_dir() and daily.is_dir():
        _cli(
            "replay", "thesis", "--crypto", str(four_hour), "--stocks", str(daily),
            "--start", "2025-03-03", "--end", "2025-03-10", "--season", "load",
            "--agent", "cash=baseline:cash", "--agent", "hold=baseline:buy-and-hold",
            "--agent", "coin=baseline:coin-flip", "--db", db,
        )  # fmt: skip
        pages += [
            "/thesis/load",
            "/thesis/load/agents/coin",
            "/api/v1/thesis/load",
            "/api/v1/thesis/load/agents/hold",
        ]
    service = ScenarioService(open_store(db), WallClock())
    run_id = ""
    try:
        data = synthetic_dataset(len(SYMBOLS), 60, seed=5, symbols=SYMBOLS)
        scenario = provision_from_market(
            service,
            "load",
            data,
            SYMBOLS,
            datetime(2024, 1, 2, tzinfo=UTC),
            datetime(2025, 1, 1, tzinfo=UTC),
        )
        keys = [service.create_key(f"agent-{i}", Tier.PRO) for i in range(20)]
        for n in range(published):
            account = service.authenticate(keys[n % len(keys)])
            run = service.create_run(account, scenario.id)
            run_id = str(run["id"])
            while not service.step(account, run_id)["done"]:
                pass
            service.publish(account, run_id)
    finally:
        service.store.close()
    pages += [f"/scenarios/{scenario.id}", f"/api/v1/leaderboard?scenario={scenario.id}"]
    if run_id:
        pages += [f"/runs/{run_id}", f"/api/v1/runs/{run_id}/public"]
    return scenario.id, pages, keys


def _check_pages(base: str, pages: list[str]) -> list[str]:
    """Return the pages that do not answer 200 to one plain GET (they are named, not read)."""
    with httpx.Client(base_url=base, timeout=60) as client:
        return [p for p in pages if client.get(p).status_code != 200]


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Tally:
    """What the load did: latencies of ``/healthz``, outcomes by kind, peak memory."""

    health_ms: list[float] = field(default_factory=list)
    metrics_ms: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    peak_mib: float = 0.0
    rss_mib: list[float] = field(default_factory=list)
    """The server's RSS every 0.2 s, in order: flat or growing is read from it."""


async def _reader(client: httpx.AsyncClient, pages: list[str], stop: float, t: Tally) -> None:
    while time.monotonic() < stop:
        for path in pages:
            if time.monotonic() >= stop:
                return
            try:
                got = await client.get(path)
                t.outcomes[f"read {got.status_code}"] += 1
                if got.status_code != 200:
                    t.outcomes[f"  read {got.status_code} {path}"] += 1
            except httpx.HTTPError as exc:
                t.outcomes[f"read {type(exc).__name__}"] += 1


async def _agent(client: httpx.AsyncClient, key: str, scenario: str, stop: float, t: Tally) -> None:
    headers = {"X-API-Key": key}
    while time.monotonic() < stop:
        try:
            made = await client.post("/api/v1/runs", json={"scenario": scenario}, headers=headers)
            t.outcomes[f"create {made.status_code}"] += 1
            if made.status_code != 201:
                return
            run = made.json()["id"]
            done = False
            while not done and time.monotonic() < stop:
                order = {"orders": [{"symbol": "SPY", "side": "buy", "quantity": 1}]}
                await client.post(f"/api/v1/runs/{run}/trades", json=order, headers=headers)
                step = await client.post(f"/api/v1/runs/{run}/step", headers=headers)
                t.outcomes[f"step {step.status_code}"] += 1
                done = step.status_code != 200 or bool(step.json()["done"])
        except httpx.HTTPError as exc:
            t.outcomes[f"agent {type(exc).__name__}"] += 1


_PROBE = """
import json, signal, sys, time, httpx
base, stop = sys.argv[1], time.monotonic() + float(sys.argv[2])
out, asked = {"/healthz": [], "/metrics": []}, []
signal.signal(signal.SIGTERM, lambda *_: asked.append(1))  # stop early, still print
with httpx.Client(base_url=base, timeout=30) as client:
    turn = 0
    while time.monotonic() < stop and not asked:
        path = "/healthz" if turn % 2 == 0 else "/metrics"
        turn += 1
        began = time.perf_counter()
        try:
            ok = client.get(path).status_code == 200
            out[path].append((time.perf_counter() - began) * 1000 if ok else -1.0)
        except httpx.HTTPError:
            out[path].append(-1.0)
        time.sleep(0.05)
print(json.dumps(out))
"""


def _start_prober(base: str, seconds: float) -> subprocess.Popen[bytes]:
    """Probe ``/healthz`` and ``/metrics`` in turn, every 50 ms, from a process of its own.

    A probe in the load generator's own event loop would time that loop's
    backlog as well as the server; its own process times the server only.
    """
    return subprocess.Popen(
        [sys.executable, "-c", _PROBE, base, str(seconds)], stdout=subprocess.PIPE
    )


async def _watch_memory(pid: int, stop: float, t: Tally) -> None:
    while time.monotonic() < stop:
        rss = _rss_mib(pid)
        t.peak_mib = max(t.peak_mib, rss)
        t.rss_mib.append(rss)
        await asyncio.sleep(0.2)


async def _load(
    base: str, pid: int, args: argparse.Namespace, built: tuple[str, list[str], list[str]]
) -> Tally:
    scenario, pages, keys = built
    tally = Tally()
    stop = time.monotonic() + args.seconds
    limits = httpx.Limits(max_connections=args.readers + args.clients)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        prober = _start_prober(base, args.seconds)
        tasks = [_watch_memory(pid, stop, tally)]
        tasks += [_reader(client, pages, stop, tally) for _ in range(args.readers)]
        tasks += [
            _agent(client, keys[i % len(keys)], scenario, stop, tally) for i in range(args.clients)
        ]
        await asyncio.gather(*tasks)
    probed, _ = prober.communicate(timeout=120)
    _read_probes(probed, tally)
    return tally


def _read_probes(probed: bytes | None, tally: Tally) -> None:
    """Put the prober's latencies in ``tally``; a failed probe is counted, not timed."""
    got = json.loads(probed or b"{}")
    for path, into in (("/healthz", tally.health_ms), ("/metrics", tally.metrics_ms)):
        for ms in got.get(path, []):
            if ms < 0:
                tally.outcomes[f"{path} failed"] += 1
            else:
                into.append(ms)


async def _hostile(base: str, key: str, scenario: str, senders: int) -> tuple[Tally, float]:
    """Send the hostile corpus `HOSTILE_PASSES` times, ``senders`` at a time, probing ``/healthz``.

    Returns the tally (answers by status, ``/healthz`` latencies) and the seconds it took.
    """
    tally = Tally()
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        created = await client.post(
            "/api/v1/runs", json={"scenario": scenario}, headers={"X-API-Key": key}
        )
        queue = list(enumerate(hostile_corpus(created.json()["id"]))) * HOSTILE_PASSES
        began = time.monotonic()
        prober = _start_prober(base, 600.0)

        async def send() -> None:
            while queue:
                index, (_, route, body, headers, _) = queue.pop()
                sent = {**headers, "X-API-Key": key if index % 2 else ""}
                try:
                    answer = await client.post(route, content=body, headers=sent)
                    tally.outcomes[f"hostile {answer.status_code}"] += 1
                except httpx.HTTPError as exc:
                    tally.outcomes[f"hostile {type(exc).__name__}"] += 1

        await asyncio.gather(*(send() for _ in range(senders)))
        took = time.monotonic() - began
        prober.terminate()  # the prober prints what it has when asked to stop
    probed, _ = prober.communicate(timeout=30)
    _read_probes(probed, tally)
    return tally, took


def _health_line(what: str, health: list[float], path: str = "/healthz") -> str:
    return (
        f"{path} {what} over {len(health)} probes: p50 {_percentile(health, 0.5):.1f} ms, "
        f"p99 {_percentile(health, 0.99):.1f} ms, max {max(health, default=float('nan')):.1f} ms"
        + (f", mean {statistics.fmean(health):.1f} ms" if health else "")
    )


@contextlib.contextmanager
def _fresh_postgres(server: str) -> Iterator[str]:
    """Create an empty database on ``server`` for the run; drop it after."""
    import sqlalchemy as sa

    name = f"tl_load_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{server.rpartition('/')[0]}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextlib.contextmanager
def _store_url(kind: str, pg: str | None) -> Iterator[str]:
    """Yield the URL of a fresh, empty store of ``kind`` (sqlite or postgresql)."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'load.db'}"
        return
    server = pg or find_postgres()
    if server is None:
        raise SystemExit("no PostgreSQL server: give --pg postgresql+psycopg://...")
    with _fresh_postgres(server) as url:
        yield url


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


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=100, choices=range(0, 201), metavar="N")
    parser.add_argument("--clients", type=int, default=200, choices=range(0, 401), metavar="N")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--published", type=int, default=20)
    parser.add_argument("--hostile", type=int, default=4, choices=range(0, 33), metavar="N")
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg", default=None, help="a PostgreSQL server's URL (database ignored)")
    args = parser.parse_args()
    args.seconds = min(max(args.seconds, 5.0), 600.0)
    with _store_url(args.store, args.pg) as db:
        print(f"building the store ({args.store})...", flush=True)
        built = _build(db, args.published, leagues=args.readers > 0)
        server, base = _serve(db)
        try:
            failing = _check_pages(base, built[1])
            if failing:
                print("pages not answering 200 before the load: " + ", ".join(failing))
            before = _rss_mib(server.pid)
            print(
                f"{args.readers} readers of {len(built[1])} pages and {args.clients} scenario "
                f"clients for {args.seconds:g} s against {base} on {args.store}",
                flush=True,
            )
            tally = asyncio.run(_load(base, server.pid, args, built))
            after = _rss_mib(server.pid)
            if args.hostile:
                print(
                    f"{args.hostile} senders of the hostile corpus, {HOSTILE_PASSES} times through",
                    flush=True,
                )
                scenario, _, keys = built
                hostile, took = asyncio.run(_hostile(base, keys[0], scenario, args.hostile))
        finally:
            server.terminate()
            server.wait(10)
    print(_health_line(f"under the load ({args.store})", tally.health_ms))
    print(_health_line(f"under the load ({args.store})", tally.metrics_ms, "/metrics"))
    for outcome, count in sorted(tally.outcomes.items()):
        print(f"  {outcome}: {count:,}")
    print(
        f"server memory (RSS): before {before:.0f} MiB, "
        f"peak {tally.peak_mib:.0f}, after {after:.0f}"
    )
    tenths = [tally.rss_mib[len(tally.rss_mib) * k // 10] for k in range(10) if tally.rss_mib]
    print(
        "server memory over the load, each tenth (MiB): "
        + " ".join(f"{m:.0f}" for m in [*tenths, *tally.rss_mib[-1:]])
    )

    if args.hostile:
        print(_health_line(f"under the hostile corpus ({took:.1f} s)", hostile.health_ms))
        print(
            _health_line(f"under the hostile corpus ({took:.1f} s)", hostile.metrics_ms, "/metrics")
        )
        for outcome, count in sorted(hostile.outcomes.items()):
            print(f"  {outcome}: {count:,}")


if __name__ == "__main__":
    main()
