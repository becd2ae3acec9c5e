"""Run the packaged Alembic migrations programmatically.

The revisions live in ``tradeleague/store/migrations/versions`` and travel in
the wheel; no ``alembic.ini`` is needed at run time. A blank database is
brought to head in one transaction (DESIGN: migrations ordered and tested from
a blank database).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from tradeleague.store.engine import WRITE

__all__ = ["current_revision", "head_revision", "upgrade"]

_MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    return config


@cache
def head_revision() -> str:
    """Return the revision id that this version of tradeleague expects (the head)."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations found under {_MIGRATIONS}")
    return head


def current_revision(connection: sa.Connection) -> str | None:
    """Return the database's schema revision, or ``None`` for a blank database."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: sa.Engine, to: str = "head") -> bool:
    """Bring the database behind ``engine`` to the head revision (or to revision ``to``).

    A revision before head is for tests that build a database as an older
    version left it, then upgrade it.

    Returns
    -------
    bool
        Whether any migration ran (``False`` when already there).
    """
    target = head_revision() if to == "head" else to
    with engine.connect() as connection:
        if current_revision(connection) == target:
            return False
    config = _config()
    with engine.connect().execution_options(**{WRITE: True}) as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, target)
        connection.commit()
    return True
