"""PostgreSQL connections cut mid-request: every idempotency key is usable afterwards (S-SVC-1).

A real uvicorn serves the scenario API on PostgreSQL. Each step request is held
in flight (another connection locks its run's row), then its database backend
is terminated with ``pg_terminate_backend`` (again and again, while it is
retried inside the service), as a crashed or restarted database would. Each
request fails with a 503 sentence; retried with the same
``Idempotency-Key``, each runs exactly once, and a further retry replays it. A
claim committed without its answer (only an earlier version, which recorded
answers in a later transaction, could leave one) blocks retries only for the
lease, then the key is usable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
import sqlalchemy as sa

from tradeleague.accounts import Tier
from tradeleague.accounts.idempotency import IN_FLIGHT_LEASE, claim, fingerprint
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.league.scenario.routes import create_app
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store, verify
from tradeleague.testing.server import serve_asgi

pytestmark = pytest.mark.postgres

SYMBOLS = ("AAPL", "SPY", "TSLA")
START, END = datetime(2024, 1, 2, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def served(pg_url: str) -> Iterator[tuple[ScenarioService, ReplayClock, str, str, str]]:
    clock = ReplayClock(datetime(2026, 3, 10, 12, 0, tzinfo=UTC))
    service = ScenarioService(open_store(pg_url), clock)
    data = synthetic_dataset(len(SYMBOLS), 30, seed=3, symbols=SYMBOLS)
    scenario = provision_from_market(service, "cut", data, SYMBOLS, START, END)
    key = service.create_key("builder", Tier.PRO)
    try:
        with serve_asgi(create_app(service)) as base:
            yield service, clock, base, key, scenario.id
    finally:
        service.store.close()


def _waiting_backends(admin: sa.Connection) -> list[int]:
    rows = admin.execute(
        sa.text(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
    )
    return [int(r.pid) for r in rows]


def test_connections_cut_mid_step_leave_every_key_usable(
    served: tuple[ScenarioService, ReplayClock, str, str, str], pg_url: str
) -> None:
    """S-SVC-1: a step whose connection is cut is not run; its key runs it on retry, once."""
    service, _clock, base, key, scenario = served
    headers = {"X-API-Key": key}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        runs = [
            client.post("/api/v1/runs", json={"scenario": scenario}).json()["id"] for _ in range(3)
        ]
        admin_engine = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
        locker = sa.create_engine(pg_url)
        results: dict[str, httpx.Response] = {}

        def step(run_id: str) -> None:
            with httpx.Client(base_url=base, headers=headers, timeout=30) as own:
                results[run_id] = own.post(
                    f"/api/v1/runs/{run_id}/step", headers={"Idempotency-Key": f'"k-{run_id}"'}
                )

        with locker.connect() as hold, admin_engine.connect() as admin:
            hold.execute(
                sa.text("SELECT id FROM scenario_runs WHERE id = ANY(:ids) FOR UPDATE"),
                {"ids": runs},
            )
            threads = [threading.Thread(target=step, args=(r,)) for r in runs]
            for thread in threads:
                thread.start()
            # the steps may wait alone or batched, and a cut batch is tried again step by
            # step: whatever waits on the runs' locks is cut, until every step is answered
            cuts = 0
            deadline = time.monotonic() + 60
            while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
                for pid in _waiting_backends(admin):
                    admin.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid})
                    cuts += 1
                time.sleep(0.05)
            for thread in threads:
                thread.join(30)
            hold.rollback()
            assert cuts >= 1, "steps were in flight, waiting on their runs, when cut"
        admin_engine.dispose()
        locker.dispose()
        for run_id in runs:
            cut = results[run_id]
            assert cut.status_code == 503, cut.text
            assert cut.json()["error"]["code"] == "store_unavailable"
            assert "Traceback" not in cut.text
            retry = client.post(
                f"/api/v1/runs/{run_id}/step", headers={"Idempotency-Key": f'"k-{run_id}"'}
            )
            assert retry.status_code == 200, retry.text
            assert retry.json()["index"] == 1, "the cut step never ran; the retry ran it once"
            again = client.post(
                f"/api/v1/runs/{run_id}/step", headers={"Idempotency-Key": f'"k-{run_id}"'}
            )
            assert again.headers.get("Idempotent-Replayed") == "true"
            assert again.text == retry.text
    assert verify(service.store).ok


def test_a_claim_whose_holder_died_lapses_after_the_lease(
    served: tuple[ScenarioService, ReplayClock, str, str, str],
) -> None:
    """S-SVC-1: an earlier version's claim left without its answer is 409 only for the lease."""
    service, clock, base, key, scenario = served
    account = service.authenticate(key)
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as client:
        run_id = client.post("/api/v1/runs", json={"scenario": scenario}).json()["id"]
        path = f"/api/v1/runs/{run_id}/step"
        # what a server of an earlier version, killed right after its claim committed, left
        with service.write("claim a key in") as conn:
            digest = fingerprint("POST", f"/runs/{run_id}/step", {})
            assert claim(conn, service, account, "dead", digest) is None
        blocked = client.post(path, headers={"Idempotency-Key": "dead"})
        assert blocked.status_code == 409, blocked.text
        assert blocked.json()["error"]["code"] == "idempotency_in_flight"
        clock.advance(IN_FLIGHT_LEASE)
        freed = client.post(path, headers={"Idempotency-Key": "dead"})
        assert freed.status_code == 200, freed.text
        assert freed.json()["index"] == 1
