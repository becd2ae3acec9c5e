"""The append-only, hash-chained event store and its read models (SPEC C-4, C-5).

SQLite by default, PostgreSQL by URL, with the schema migrated by the packaged
Alembic revisions. Events are appended, never changed: the database rejects
UPDATE, DELETE and TRUNCATE on the log, and each event's hash covers the one
before it. Read models are pure projectors over the log; `verify` rebuilds them
from events alone and compares (DESIGN principle 4).

Examples
--------
>>> from tradeleague.store import open_store
>>> with open_store("sqlite:///league.db") as store:  # doctest: +SKIP
...     store.append([event])
...     store.refresh_projections()
...     report = verify(store)
"""

from tradeleague.store.chain import GENESIS_HASH, StoredEvent, chain_hash
from tradeleague.store.engine import BACKENDS, DEFAULT_URL, ENV_VAR, mask_url, resolve_url
from tradeleague.store.event_store import ChainHead, Store, open_store
from tradeleague.store.info import DbInfo, describe
from tradeleague.store.portfolio import (
    PORTFOLIO,
    PortfolioProjector,
    account_key,
    account_opened,
    order_filled,
)
from tradeleague.store.projection import (
    ProjectionError,
    Projector,
    get_projector,
    register_projector,
    registered_projectors,
    unregister_projector,
)
from tradeleague.store.verify import (
    Mismatch,
    ProjectionCheck,
    VerifyReport,
    verify,
    verify_since,
)

__all__ = [
    "BACKENDS",
    "DEFAULT_URL",
    "ENV_VAR",
    "GENESIS_HASH",
    "PORTFOLIO",
    "ChainHead",
    "DbInfo",
    "Mismatch",
    "PortfolioProjector",
    "ProjectionCheck",
    "ProjectionError",
    "Projector",
    "Store",
    "StoredEvent",
    "VerifyReport",
    "account_key",
    "account_opened",
    "chain_hash",
    "describe",
    "get_projector",
    "mask_url",
    "open_store",
    "order_filled",
    "register_projector",
    "registered_projectors",
    "resolve_url",
    "unregister_projector",
    "verify",
    "verify_since",
]

register_projector(PORTFOLIO, PortfolioProjector())
