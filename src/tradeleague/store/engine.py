"""Database URLs and engines: SQLite by default, PostgreSQL by URL.

On SQLite the driver's own transaction handling is switched off so that the
store decides how a transaction begins: ``BEGIN IMMEDIATE`` for a writer (it
takes the database's write lock at once, so two appenders never read the same
chain head) and a plain ``BEGIN`` for a reader. Every driver error is turned
into a `tradeleague.errors.StoreError` carrying one sentence.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, make_url

from tradeleague.errors import StoreError

__all__ = [
    "BACKENDS",
    "DEFAULT_URL",
    "ENV_VAR",
    "WRITE",
    "make_engine",
    "mask_url",
    "parse_url",
    "resolve_url",
    "translate_errors",
]

ENV_VAR: Final = "TRADELEAGUE_DB"
"""The environment variable naming the database URL."""

DEFAULT_URL: Final = "sqlite:///./tradeleague.db"
"""The database used when neither an argument nor `ENV_VAR` names one."""

BACKENDS: Final = ("sqlite", "postgresql")
"""The database backends the store supports."""

WRITE: Final = "tradeleague_write"
"""Connection execution option: begin the transaction as a writer."""


def resolve_url(url: str | None) -> str:
    """Return ``url``, else ``$TRADELEAGUE_DB``, else `DEFAULT_URL`."""
    return url or os.environ.get(ENV_VAR) or DEFAULT_URL


def parse_url(url: str) -> URL:
    """Parse a SQLAlchemy URL.

    Raises
    ------
    StoreError
        If ``url`` is not a database URL.
    """
    try:
        return make_url(url)
    except exc.ArgumentError:
        raise StoreError(
            f"{url!r} is not a database URL "
            "(expected e.g. sqlite:///./tradeleague.db or postgresql+psycopg://user@host/db)."
        ) from None


def mask_url(url: str | URL) -> str:
    """Return ``url`` as text with any password replaced by ``***``."""
    parsed = url if isinstance(url, URL) else parse_url(url)
    return parsed.render_as_string(hide_password=True)


def _first_line(error: BaseException) -> str:
    original = getattr(error, "orig", None) or error
    text = str(original).strip().splitlines()
    return text[0].rstrip(".") if text else type(original).__name__


@contextmanager
def translate_errors(doing: str, url: str | URL) -> Iterator[None]:
    """Turn a driver error raised inside the block into a one-sentence `StoreError`.

    Parameters
    ----------
    doing
        What was being done, as a verb phrase ("open", "append events to").
    url
        The database, shown with its password masked.
    """
    try:
        yield
    except exc.NoSuchModuleError as error:
        raise StoreError(
            f"Cannot {doing} {mask_url(url)}: unsupported database driver ({_first_line(error)})."
        ) from None
    except (exc.DBAPIError, exc.SQLAlchemyError) as error:
        raise StoreError(f"Cannot {doing} {mask_url(url)}: {_first_line(error)}.") from error


def _sqlite_hooks(engine: sa.Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        mode = "IMMEDIATE" if connection.get_execution_options().get(WRITE) else "DEFERRED"
        connection.exec_driver_sql(f"BEGIN {mode}")


def make_engine(url: str) -> sa.Engine:
    """Return an engine for ``url`` (no connection is made yet).

    Raises
    ------
    StoreError
        If the URL is malformed, names a backend other than `BACKENDS` or a
        driver that is not installed, or names a SQLite file in a folder that
        does not exist.
    """
    parsed = parse_url(url)
    backend = parsed.get_backend_name()
    if backend == "postgres":  # libpq's own scheme, which SQLAlchemy does not take
        raise StoreError(
            f"Cannot open {mask_url(parsed)}: write a PostgreSQL URL as "
            "postgresql+psycopg://USER@HOST:PORT/DATABASE."
        )
    if backend not in BACKENDS:
        raise StoreError(
            f"Cannot open {mask_url(parsed)}: the store supports {' and '.join(BACKENDS)}, "
            f"not {backend}."
        )
    is_sqlite = backend == "sqlite"
    if is_sqlite and parsed.database not in (None, "", ":memory:"):
        folder = Path(parsed.database).parent
        if not folder.is_dir():
            raise StoreError(
                f"Cannot open {mask_url(parsed)}: the folder {str(folder)!r} does not exist."
            )
    try:
        with translate_errors("open", parsed):
            engine = sa.create_engine(parsed, pool_pre_ping=not is_sqlite)
    except ImportError as error:
        raise StoreError(
            f"Cannot open {mask_url(parsed)}: its driver is not installed ({error})."
        ) from None
    if is_sqlite:
        _sqlite_hooks(engine)
    return engine
