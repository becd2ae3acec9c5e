"""A summary of a database for people: where it is, its schema, its log's head."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import sqlalchemy as sa

from tradeleague.errors import StoreError
from tradeleague.store import migrate
from tradeleague.store.chain import GENESIS_HASH
from tradeleague.store.engine import make_engine, mask_url, parse_url, resolve_url, translate_errors
from tradeleague.store.schema import chain_head, events

__all__ = ["DbInfo", "describe"]


@dataclass(frozen=True, slots=True)
class DbInfo:
    """What `describe` found.

    Attributes
    ----------
    url
        The database URL, password masked.
    backend
        ``sqlite`` or ``postgresql``.
    revision
        The schema revision, ``None`` for a blank database.
    head_revision
        The revision this version of tradeleague expects.
    events
        Events in the log (0 for a blank database).
    head_seq, head_hash
        The chain head (0 and the genesis hash for an empty log).
    """

    url: str
    backend: str
    revision: str | None
    head_revision: str
    events: int
    head_seq: int
    head_hash: str

    @property
    def up_to_date(self) -> bool:
        """Return whether the schema is at the expected revision."""
        return self.revision == self.head_revision

    def to_dict(self) -> dict[str, object]:
        """Return the summary as a JSON-safe dict."""
        out = asdict(self)
        out["up_to_date"] = self.up_to_date
        return out


def describe(url: str | None = None) -> DbInfo:
    """Return a summary of the database at ``url`` without changing it.

    Raises
    ------
    StoreError
        If the database cannot be reached (or, for SQLite, the file is missing).
    """
    parsed = parse_url(resolve_url(url))
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise StoreError(f"There is no database at {mask_url(parsed)}.")
    engine = make_engine(resolve_url(url))
    try:
        with translate_errors("open", parsed), engine.connect() as connection:
            revision = migrate.current_revision(connection)
            count, seq, digest = 0, 0, GENESIS_HASH
            if revision is not None:
                count = int(
                    connection.execute(sa.select(sa.func.count()).select_from(events)).scalar_one()
                )
                head = connection.execute(sa.select(chain_head).where(chain_head.c.id == 1)).one()
                seq, digest = int(head.seq), str(head.hash)
    finally:
        engine.dispose()
    return DbInfo(
        url=mask_url(parsed),
        backend=parsed.get_backend_name(),
        revision=revision,
        head_revision=migrate.head_revision(),
        events=count,
        head_seq=seq,
        head_hash=digest,
    )
