"""The exactly-once chaos drill shared by the PostgreSQL test and its SQLite twin (S-SVC-1).

A real uvicorn serves the scenario API. Several clients, at once, each create
a run and play it: per step, queue two orders, cancel the second, step. Every
request carries its own ``Idempotency-Key``. Meanwhile the service's database
connections are dropped under it:

- deterministically, through the store's commit seam (`Store.commit_fault`):
  the commit of every `EVERY`-th write transaction is cut, alternately just
  before it (the transaction rolls back: the request never happened) and just
  after it (the transaction committed but the answer is lost: the request
  happened);
- and, on PostgreSQL, also at random moments by a thread that terminates every
  backend of the service's database.

A cut request answers 503 (or the connection drops); the client sends it again
with the same key until it is answered, then once more to see the answer
replayed. Afterwards every run is checked step by step: one equity row per
step, each order queued, cancelled and filled once, every replay equal to the
first answer, the account holding exactly the runs it asked for, and the
event chain intact.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
import sqlalchemy as sa

from tradeleague.accounts import Tier
from tradeleague.clock import ReplayClock
from tradeleague.events import EventKind
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.league.scenario.book import run_stream
from tradeleague.league.scenario.routes import create_app
from tradeleague.league.scenario.tables import scenario_run_equity, scenario_runs
from tradeleague.market import synthetic_dataset
from tradeleague.store import Store, verify
from tradeleague.store.transactions import CommitPoint
from tradeleague.testing.server import serve_asgi

SYMBOLS = ("AAPL", "SPY", "TSLA")
START, END = datetime(2024, 1, 2, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
RUNS, STEPS = 3, 5
EVERY = 4
"""Every EVERY-th write transaction's commit is cut."""
MAX_TRIES = 40
"""How often one request is sent before the drill gives up on it."""

Kill = Callable[[sa.Connection], None]
"""Drops the database connection under a transaction, as the backend's death would."""


class CommitCutter:
    """The store's commit seam: cuts every `EVERY`-th write commit, before or after it."""

    def __init__(self, kill: Kill) -> None:
        self._kill = kill
        self._lock = threading.Lock()
        self._after = threading.local()
        self.armed = False
        self.commits = 0
        self.before = 0
        """Commits cut before they happened (rolled back)."""
        self.after = 0
        """Commits cut after they happened (the answer lost)."""

    def __call__(self, point: CommitPoint, conn: sa.Connection) -> None:
        if point == "committed":
            if getattr(self._after, "due", False):
                self._after.due = False
                self._kill(conn)
            return
        with self._lock:
            if not self.armed:
                return
            self.commits += 1
            if self.commits % EVERY:
                return
            cut_before = (self.commits // EVERY) % 2 == 1
            if cut_before:
                self.before += 1
            else:
                self.after += 1
        if cut_before:
            self._kill(conn)
        else:
            self._after.due = True


@dataclass
class Seen:
    """What one request's key was answered: first (after any retries), then on a replay."""

    first: httpx.Response
    again: httpx.Response


@dataclass
class Drill:
    """The served service, its cutter, and what the clients saw."""

    service: ScenarioService
    cutter: CommitCutter
    base: str
    key: str
    scenario: str
    seen: dict[str, list[Seen]] = field(default_factory=dict)
    made: list[httpx.Response] = field(default_factory=list)
    """The first answer to each run's creation."""
    cut_answers: int = 0


def make_service(store: Store) -> tuple[ScenarioService, str, str]:
    """Return a service on ``store`` with one scenario and one Pro key."""
    service = ScenarioService(store, ReplayClock(datetime(2026, 3, 10, 12, 0, tzinfo=UTC)))
    data = synthetic_dataset(len(SYMBOLS), 30, seed=3, symbols=SYMBOLS)
    scenario = provision_from_market(service, "once", data, SYMBOLS, START, END)
    return service, service.create_key("builder", Tier.PRO), scenario.id


def _send(
    drill: Drill, client: httpx.Client, method: str, path: str, key: str, body: object
) -> httpx.Response:
    """Send until answered with the same key; return the answer."""
    headers = {"Idempotency-Key": f'"{key}"'}
    for _ in range(MAX_TRIES):
        try:
            answer = client.request(method, path, json=body, headers=headers)
        except httpx.TransportError:
            continue
        if answer.status_code == 503:
            assert answer.json()["error"]["code"] == "store_unavailable", answer.text
            assert "Traceback" not in answer.text
            drill.cut_answers += 1
            continue
        assert answer.status_code != 409, f"a key was left in flight: {answer.text}"
        return answer
    raise AssertionError(f"{method} {path} with {key} was never answered in {MAX_TRIES} tries")


def _once(
    drill: Drill, client: httpx.Client, run: str, method: str, path: str, key: str, body: object
) -> httpx.Response:
    first = _send(drill, client, method, path, key, body)
    again = _send(drill, client, method, path, key, body)
    drill.seen.setdefault(run, []).append(Seen(first, again))
    return first


def _play(drill: Drill, client_no: int, failures: list[BaseException]) -> None:
    try:
        with httpx.Client(
            base_url=drill.base, headers={"X-API-Key": drill.key}, timeout=60
        ) as client:
            made = _send(
                drill,
                client,
                "POST",
                "/api/v1/runs",
                f"r-{client_no}",
                {"scenario": drill.scenario},
            )
            assert made.status_code == 201, made.text
            drill.made.append(made)
            run = str(made.json()["id"])
            again = _send(
                drill,
                client,
                "POST",
                "/api/v1/runs",
                f"r-{client_no}",
                {"scenario": drill.scenario},
            )
            assert again.text == made.text, "run creation replayed, not run twice"
            assert again.headers.get("Idempotent-Replayed") == "true"
            orders = {
                "orders": [
                    {"symbol": "AAPL", "side": "buy", "quantity": "1"},
                    {"symbol": "SPY", "side": "buy", "quantity": "1"},
                ]
            }
            base = f"/api/v1/runs/{run}"
            for n in range(STEPS):
                _once(drill, client, run, "POST", f"{base}/trades", f"t-{run}-{n}", orders)
                _once(drill, client, run, "DELETE", f"{base}/orders/1", f"c-{run}-{n}", None)
                _once(drill, client, run, "POST", f"{base}/step", f"s-{run}-{n}", None)
    except BaseException as exc:  # surfaced in the test's own thread
        failures.append(exc)


def run_drill(drill: Drill, chaos: Callable[[threading.Event], None] | None = None) -> None:
    """Play `RUNS` runs at once under the cutter (and ``chaos``, until the clients are done)."""
    failures: list[BaseException] = []
    done = threading.Event()
    drill.cutter.armed = True
    threads = [threading.Thread(target=_play, args=(drill, i, failures)) for i in range(RUNS)]
    side = threading.Thread(target=chaos, args=(done,)) if chaos is not None else None
    for thread in [*threads, *([side] if side is not None else [])]:
        thread.start()
    for thread in threads:
        thread.join(120)
    done.set()
    if side is not None:
        side.join(30)
    drill.cutter.armed = False
    assert not failures, repr(failures[0])
    assert all(not t.is_alive() for t in threads), "every client finished"


def check_every_run(drill: Drill) -> None:
    """Check each run step by step (see the module notes)."""
    cutter, service = drill.cutter, drill.service
    assert cutter.before > 0, "commits were cut before they happened"
    assert cutter.after > 0, "commits were cut after they happened (answers lost)"
    assert drill.cut_answers > 0, "clients saw their requests cut"
    runs = sorted(drill.seen)
    assert len(runs) == RUNS
    firsts = [s.first for seen in drill.seen.values() for s in seen] + drill.made
    assert any(f.headers.get("Idempotent-Replayed") == "true" for f in firsts), (
        "a request whose answer was lost was answered from its record (a retry's first answer)"
    )
    for run in runs:
        seen = drill.seen[run]
        assert len(seen) == 3 * STEPS
        for n in range(STEPS):
            traded, cancelled, stepped = seen[3 * n : 3 * n + 3]
            for one in (traded, cancelled, stepped):
                assert one.first.status_code == 200, one.first.text
                assert one.again.headers.get("Idempotent-Replayed") == "true"
                assert one.again.text == one.first.text, "each replay equals the first answer"
            assert traded.first.json()["accepted"] == 2
            assert [o["symbol"] for o in traded.first.json()["queued"]] == ["AAPL", "SPY"], (
                "the orders were queued once"
            )
            assert cancelled.first.json()["cancelled"]["symbol"] == "SPY"
            assert [o["symbol"] for o in cancelled.first.json()["queued"]] == ["AAPL"]
            step = stepped.first.json()
            assert step["index"] == n + 1, "each step ran once, in order"
            assert [f["symbol"] for f in step["fills"]] == ["AAPL"], "each order filled once"
    with service.store.engine.connect() as conn:
        owned = conn.execute(
            sa.select(sa.func.count()).where(scenario_runs.c.account == "builder")
        ).scalar_one()
        assert owned == RUNS, "each run was created once"
        for run in runs:
            equity = conn.execute(
                sa.select(sa.func.count()).where(scenario_run_equity.c.run_id == run)
            ).scalar_one()
            assert equity == STEPS + 1, "one equity row per step, and bar 0's"
    for run in runs:
        fills = [
            e
            for e in service.store.events(run_stream(run))
            if e.event.kind == EventKind.ORDER_FILLED
        ]
        assert len(fills) == STEPS, "one fill per step in the run's record"
        assert [e.event.payload["index"] for e in fills] == list(range(1, STEPS + 1))
    assert verify(service.store).ok


__all__ = [
    "EVERY",
    "RUNS",
    "STEPS",
    "CommitCutter",
    "Drill",
    "check_every_run",
    "create_app",
    "make_service",
    "run_drill",
    "serve_asgi",
]
