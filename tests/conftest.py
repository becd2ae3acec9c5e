"""Shared fixtures: shared market data, PostgreSQL, and databases per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tradeleague.testing.env import find_postgres, require_all, shared_data_dir

# No Hypothesis example is timed: on two shared cores a 200 ms deadline failed a pure
# property test under load (speed is for bench/, never a test's verdict).
settings.register_profile("tradeleague", deadline=None)
settings.load_profile("tradeleague")


def _missing(reason: str) -> None:
    if require_all():
        pytest.fail(f"{reason} (TRADELEAGUE_REQUIRE_ALL is set, so this cannot skip)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The ``../shared/data`` folder; skips (or fails under CI) where it is absent."""
    path = shared_data_dir(Path(__file__))
    if path is None:
        _missing("../shared/data is absent (a stranger's clone): real-data tests skipped")
        raise AssertionError("unreachable")
    return path


@pytest.fixture(scope="session")
def ray_module() -> Any:
    """The ``ray`` module; skips (or fails under CI) where the ``ray`` extra is not installed."""
    try:
        import ray
    except ImportError:
        _missing("ray is not installed (pip install 'tradeleague[ray]'): the Ray sweep skipped")
        raise AssertionError("unreachable") from None
    return ray


@pytest.fixture
def deep_stack() -> Iterator[None]:
    """Raise the recursion limit as py_ecc does, so an unbounded decoder would overflow the stack.

    Hostile-input tests take it: a parser that recursed into a 70,000-deep document would then
    crash the interpreter instead of failing politely at the default limit.
    """
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    """The URL of a reachable PostgreSQL server (found or started)."""
    url = find_postgres()
    if url is None:
        _missing("no PostgreSQL server on 127.0.0.1:5432 and none could be started")
        raise AssertionError("unreachable")
    return url


@pytest.fixture
def pg_url(pg_server_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    import uuid

    import sqlalchemy as sa

    name = f"tl_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(pg_server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    base, _, _ = pg_server_url.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database file for one test."""
    return f"sqlite:///{tmp_path / 'tradeleague.db'}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Run a test once on SQLite and once on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tradeleague.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url
