"""SQLite: connections closed under the service at its commits; every request runs once (S-SVC-1).

The SQLite twin of ``test_chaos_exactly_once_postgres.py``: the drill of
`exactly_once`, with the connection under every fourth write transaction
closed just before its commit (rolled back) or just after it (the answer
lost), through the store's commit seam.
"""

from __future__ import annotations

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


def _close_under(conn: sa.Connection) -> None:
    """Close the SQLite connection under ``conn``, then use it: the driver's error follows."""
    conn.connection.dbapi_connection.close()  # type: ignore[union-attr]
    conn.exec_driver_sql("SELECT 1")


def test_connections_closed_at_commits_run_every_request_exactly_once(sqlite_url: str) -> None:
    """S-SVC-1: with commits cut before and after, each run, trade, cancel and step runs once."""
    service, key, scenario = make_service(open_store(sqlite_url))
    cutter = CommitCutter(_close_under)
    service.store.commit_fault = cutter
    try:
        with serve_asgi(create_app(service)) as base:
            drill = Drill(service, cutter, base, key, scenario)
            run_drill(drill)
        check_every_run(drill)
    finally:
        cutter.armed = False
        service.store.close()
