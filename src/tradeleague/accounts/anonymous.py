"""Writes without an account, counted in the store: a limit per client address, owned names.

`WriteLimits.take` spends one of a client address's writes: at most
``per_window`` in each ``window_s`` seconds, counted in the ``write_limits``
table, so every ``serve`` process on one store counts together (the HTTP side
is ``api.write_limits``). `claim_name` makes a visitor's name belong to whoever
first wrote under it (``visitor_names``: the name casefolded and hashed, and
the hash that names its holder).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from tradeleague.errors import ConfigError
from tradeleague.store import Store
from tradeleague.store.schema import UtcDateTime

__all__ = ["WriteLimit", "WriteLimits", "claim_name", "hashed", "visitor_names", "write_limits"]

_metadata = sa.MetaData()

write_limits = sa.Table(
    "write_limits",
    _metadata,
    sa.Column("client", sa.String(64), primary_key=True),
    sa.Column("window", sa.BigInteger, primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
)
"""Writes without an account per client address (hashed) and window (migration 0006)."""

visitor_names = sa.Table(
    "visitor_names",
    _metadata,
    sa.Column("name_key", sa.String(64), primary_key=True),
    sa.Column("holder", sa.String(64), nullable=False),
    sa.Column("first_at", UtcDateTime, nullable=False),
)
"""Who first wrote under each visitor's name (casefolded, hashed) (migration 0006)."""


@dataclass(frozen=True, slots=True)
class WriteLimit:
    """How many writes without an account one client address may make per window."""

    per_window: int = 30
    window_s: int = 60

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str = "[limits]") -> WriteLimit:
        """Read ``anonymous_writes`` and ``window_s`` from a league file's ``[limits]``.

        Raises
        ------
        ConfigError
            An unknown key, or a number that is not a whole number in range.
        """
        unknown = sorted(set(table) - {"anonymous_writes", "window_s"})
        if unknown:
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (anonymous_writes, window_s)")
        default = cls()
        per = table.get("anonymous_writes", default.per_window)
        window = table.get("window_s", default.window_s)
        for key, value, top in (("anonymous_writes", per, 100_000), ("window_s", window, 86_400)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
                raise ConfigError(f"{where}: {key} is a whole number from 1 to {top}")
        return cls(per_window=per, window_s=window)


def hashed(text: str) -> str:
    """Return the SHA-256 hex of ``text`` (client addresses and cookies are kept only so)."""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def _upsert(dialect: str) -> Callable[..., Any]:
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


class WriteLimits:
    """Count each client address's writes without an account in the store.

    Parameters
    ----------
    store
        The store every ``serve`` process of the league shares.
    limit
        The writes allowed per window.
    now
        Seconds since the epoch (the wall clock by default): limits pace real
        requests, whatever clock the league's rounds run on.
    """

    def __init__(
        self, store: Store, limit: WriteLimit, now: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.limit = limit
        self._now = now
        self._insert = _upsert(store.backend)

    def take(self, client: str) -> int | None:
        """Spend one write of ``client``; return ``None``, or the seconds to wait (none left)."""
        moment = self._now()
        window = int(moment // self.limit.window_s)
        key = hashed(client)
        insert = self._insert(write_limits).values(client=key, window=window, hits=1)
        upsert = insert.on_conflict_do_update(
            index_elements=["client", "window"], set_={"hits": write_limits.c.hits + 1}
        ).returning(write_limits.c.hits)
        with self.store.transaction("count a write without an account in", write=True) as conn:
            hits = int(conn.execute(upsert).scalar_one())
            if hits == 1:  # the first of a window: forget windows that have ended
                conn.execute(sa.delete(write_limits).where(write_limits.c.window < window - 1))
        if hits <= self.limit.per_window:
            return None
        return max(1, math.ceil((window + 1) * self.limit.window_s - moment))


def claim_name(store: Store, name: str, holder: str, at: datetime) -> bool:
    """Make ``holder`` the owner of ``name`` if nobody is; return whether ``holder`` owns it.

    Names are compared casefolded (``Ann`` and ``ann`` are one name).
    """
    key = hashed(name.casefold())
    insert = _upsert(store.backend)(visitor_names).values(name_key=key, holder=holder, first_at=at)
    with store.transaction("claim a visitor's name in", write=True) as conn:
        conn.execute(insert.on_conflict_do_nothing(index_elements=["name_key"]))
        owner = conn.execute(
            sa.select(visitor_names.c.holder).where(visitor_names.c.name_key == key)
        ).scalar_one()
    return str(owner) == holder
