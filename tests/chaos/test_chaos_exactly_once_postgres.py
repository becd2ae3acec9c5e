"""PostgreSQL: the service's backends terminated under load; every request runs once (S-SVC-1).

The drill of `exactly_once` on PostgreSQL. Every fourth write transaction's
backend is terminated (``pg_terminate_backend``) just before its commit
(rolled back) or just after it (the answer lost), through the store's commit
seam; and a second thread terminates every backend of the service's database
at seeded random moments while the clients play, wherever each request is.
"""

from __future__ import annotations

import random
import threading

import pytest
import sqlalchemy as sa
from exactly_once import (  # type: ignore[import-not-found]
    CommitCutter,
    Drill,
    check_every_run,
    create_app,
    make_service,
    run_drill,
    serve_asgi,
)

from tradeleague.store import open_store

pytestmark = pytest.mark.postgres

_TERMINATE_OTHERS = sa.text(
    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
)


def _terminate_own(conn: sa.Connection) -> None:
    """Terminate the backend under ``conn`` (a database restart, as its client sees it)."""
    conn.exec_driver_sql("SELECT pg_terminate_backend(pg_backend_pid())")


def test_backends_terminated_under_load_run_every_request_exactly_once(pg_url: str) -> None:
    """S-SVC-1: with backends terminated at commits and at random, each request runs once."""
    service, key, scenario = make_service(open_store(pg_url))
    cutter = CommitCutter(_terminate_own)
    service.store.commit_fault = cutter
    admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    terminated: list[int] = []

    def chaos(done: threading.Event) -> None:
        rng = random.Random(24)
        with admin.connect() as conn:
            while not done.wait(rng.uniform(0.05, 0.4)):
                terminated.append(int(conn.execute(_TERMINATE_OTHERS).scalar_one()))

    try:
        with serve_asgi(create_app(service)) as base:
            drill = Drill(service, cutter, base, key, scenario)
            run_drill(drill, chaos)
        assert sum(terminated) > 0, "backends were terminated at random moments"
        check_every_run(drill)
    finally:
        cutter.armed = False
        admin.dispose()
        service.store.close()
