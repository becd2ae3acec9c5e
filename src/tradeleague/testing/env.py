"""Where the test suite finds its real resources: shared market data and PostgreSQL.

A test that needs a resource which is absent skips with a reason, except when
``TRADELEAGUE_REQUIRE_ALL`` is set (``.ci/run`` sets it): then the absence is a
failure, so CI always runs every test.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

__all__ = ["find_postgres", "require_all", "shared_data_dir"]

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def require_all() -> bool:
    """Return whether a missing resource must fail rather than skip."""
    return os.environ.get("TRADELEAGUE_REQUIRE_ALL", "") not in ("", "0", "false")


def shared_data_dir(start: Path | None = None) -> Path | None:
    """Return ``../shared/data`` beside the project (or ``TRADELEAGUE_DATA``), if present."""
    env = os.environ.get("TRADELEAGUE_DATA")
    if env:
        p = Path(env)
        return p if p.is_dir() else None
    here = (start or Path(__file__)).resolve()
    for parent in here.parents:
        candidate = parent.parent / "shared" / "data"
        if (parent / "pyproject.toml").is_file() and candidate.is_dir():
            return candidate
    cwd_candidate = Path.cwd().parent / "shared" / "data"
    return cwd_candidate if cwd_candidate.is_dir() else None


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def find_postgres() -> str | None:
    """Return a SQLAlchemy URL of a reachable PostgreSQL server, starting one if we can.

    ``TRADELEAGUE_TEST_PG`` overrides the default (``127.0.0.1:5432``, database
    ``test``). If nothing listens there and Debian's ``pg_ctlcluster`` exists,
    the local cluster is started, as this machine kind's set-up does.
    """
    url = os.environ.get("TRADELEAGUE_TEST_PG", DEFAULT_PG)
    if _port_open("127.0.0.1", 5432) or "127.0.0.1:5432" not in url:
        return url
    ctl = shutil.which("pg_ctlcluster")
    conf = Path("/etc/postgresql")
    if ctl and conf.is_dir():
        for version in sorted(p.name for p in conf.iterdir()):
            subprocess.run(  # noqa: S603 - fixed local command
                [ctl, "--skip-systemctl-redirect", version, "main", "start"],
                check=False,
                capture_output=True,
            )
        for _ in range(30):
            if _port_open("127.0.0.1", 5432):
                return url
            time.sleep(0.5)
    return None
