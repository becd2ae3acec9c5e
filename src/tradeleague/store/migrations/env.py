"""Alembic's entry point: run the migrations on the connection it is given.

`tradeleague.store.migrate.upgrade` passes an open connection in
``config.attributes["connection"]``. Run from the ``alembic`` command line, the
URL comes from ``-x db=URL``, else ``TRADELEAGUE_DB``, else the default SQLite
file. On PostgreSQL a transaction-level advisory lock keeps two processes from
migrating at once.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from tradeleague.store.engine import make_engine, resolve_url

MIGRATION_LOCK = 7_415_900_201
"""The PostgreSQL advisory-lock key held while migrating."""


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection, transaction_per_migration=False, transactional_ddl=True
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        context.run_migrations()


def _main() -> None:
    given = context.config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    url = resolve_url(context.get_x_argument(as_dictionary=True).get("db"))
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported: give a database URL")
_main()
