"""Idempotency keys with the semantics Stripe documents (S-SVC-1).

A client sends an ``idempotency_key`` (the ``Idempotency-Key`` header, or
the JSON body's field) with a write. Then, for 24 hours (by default):

- the same key with the same parameters replays the first response, byte for byte;
- the same key with different parameters is 422 ``idempotency_key_reused``.

Exactly once, across any fault: the key's claim, the request's effect (every
write the service makes for it: its transactions join the claim's, see
`tradeleague.store.transactions`) and its recorded response commit in *one*
transaction. So a request cut anywhere (its connection dropped, its
database backend terminated, the process killed, the commit's answer lost)
either committed all three, and a retry replays the response, or none, and
a retry runs it for the first time. No claim is ever left behind: a
crashed attempt's transaction rolls back, taking its claim with it, so the
key is free at once; on PostgreSQL a second request with the key while the
first is running waits for the first's transaction and then replays its
answer (or, if it rolled back, runs). Client errors (4xx) are recorded and
replayed like successes, with what the refused request wrote undone as
without a key; a server error records nothing.

A row without a response can only be a claim committed by an earlier
version, which recorded responses in a later transaction: it answers 409
``idempotency_in_flight`` for ``IN_FLIGHT_LEASE`` after it was claimed,
then a retry runs the request. Keys are scoped to the account and expire
``idempotency_ttl`` after their first use (the service's preset: the
scenario benchmark's `ServicePreset` holds the seed's 24 hours), measured on
the injected clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Final, Protocol

import sqlalchemy as sa

from tradeleague.accounts.keys import Account
from tradeleague.accounts.tables import idempotency_keys
from tradeleague.clock import Clock
from tradeleague.errors import ServiceError, StoreError
from tradeleague.events import canonical_json

__all__ = [
    "IN_FLIGHT_LEASE",
    "MAX_KEY_LENGTH",
    "IdempotencyWindow",
    "IdempotentService",
    "check_key",
    "claim",
    "fingerprint",
    "idempotent",
    "record",
    "recorded",
]

MAX_KEY_LENGTH: Final = 255
"""The longest ``idempotency_key`` accepted, in characters."""

IN_FLIGHT_LEASE: Final = timedelta(seconds=60)
"""How long a claim an earlier version committed without its response blocks a retry (409)."""


class IdempotencyWindow(Protocol):
    """What says how long a key is kept: a service's preset."""

    @property
    def idempotency_ttl(self) -> timedelta:
        """How long after its first use a key expires."""
        ...


class IdempotentService(Protocol):
    """The service a request is made idempotent on: its clock, window and transactions."""

    @property
    def clock(self) -> Clock:
        """Where "now" comes from."""
        ...

    @property
    def preset(self) -> IdempotencyWindow:
        """The service's numbers, among them the idempotency window."""
        ...

    def write(
        self, doing: str, *, enclosing: bool = False
    ) -> AbstractContextManager[sa.Connection]:
        """Return a writer's transaction (``enclosing``: the service's writes inside join it)."""
        ...

    def read(self, doing: str) -> AbstractContextManager[sa.Connection]:
        """Return a read transaction."""
        ...


def fingerprint(method: str, path: str, params: Mapping[str, object]) -> str:
    """Return the SHA-256 of a request's method, path and parameters (key excluded)."""
    body = {k: v for k, v in params.items() if k != "idempotency_key"}
    text = canonical_json({"method": method, "path": path, "params": body})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_REUSED: Final = (
    422,
    "idempotency_key_reused",
    "This idempotency_key was used with different parameters; use a new key.",
)
_IN_FLIGHT: Final = (
    409,
    "idempotency_in_flight",
    "A request with this idempotency_key is still in progress; retry shortly.",
)


def recorded(
    service: IdempotentService, account: Account, key: str, digest: str
) -> tuple[int, str] | None:
    """Return the answer recorded for ``key``, read without taking the write lock, if any.

    A retry of a request that completed is answered from here; anything else
    (no record, an expired one, an earlier version's unanswered claim) is
    decided by `claim` in the request's own transaction.

    Raises
    ------
    ServiceError
        422 ``idempotency_key_reused`` if the key was answered for other parameters.
    """
    where = (idempotency_keys.c.account == account.name, idempotency_keys.c.key == key)
    with service.read("read an idempotency key in") as conn:
        row = conn.execute(sa.select(idempotency_keys).where(*where)).one_or_none()
    if row is None or row.status_code is None or row.body is None:
        return None
    if service.clock.now() - row.created_at >= service.preset.idempotency_ttl:
        return None
    if row.request_hash != digest:
        raise ServiceError(*_REUSED)
    return int(row.status_code), str(row.body)


def claim(
    conn: sa.Connection, service: IdempotentService, account: Account, key: str, digest: str
) -> tuple[int, str] | None:
    """Claim ``key`` inside the request's transaction; return its recorded answer if it has one.

    Pair it with `record` in the same transaction (`idempotent` does both).

    The claim is a row without an answer, written in the same transaction as
    the request's effect: no other transaction ever sees it unanswered (on
    PostgreSQL a second request with the key waits on the row's unique index
    until the first commits or rolls back). A row without an answer can only
    have been committed by a version before this one, which recorded answers
    later: it is in flight until `IN_FLIGHT_LEASE` after its claim.
    """
    now = service.clock.now()
    where = (idempotency_keys.c.account == account.name, idempotency_keys.c.key == key)
    row = conn.execute(sa.select(idempotency_keys).where(*where).with_for_update()).one_or_none()
    if row is not None and now - row.created_at >= service.preset.idempotency_ttl:
        conn.execute(sa.delete(idempotency_keys).where(*where))
        row = None
    if row is None:
        conn.execute(
            sa.insert(idempotency_keys).values(
                account=account.name, key=key, request_hash=digest, created_at=now
            )
        )
        return None
    if row.request_hash != digest:
        raise ServiceError(*_REUSED)
    if row.status_code is None or row.body is None:
        if now - row.created_at < IN_FLIGHT_LEASE:
            raise ServiceError(*_IN_FLIGHT)
        conn.execute(sa.update(idempotency_keys).where(*where).values(created_at=now))
        return None
    return int(row.status_code), str(row.body)


def record(conn: sa.Connection, account: Account, key: str, status: int, body: str) -> None:
    """Record the answer of the request that claimed ``key``, in the transaction of its claim."""
    conn.execute(
        sa.update(idempotency_keys)
        .where(idempotency_keys.c.account == account.name, idempotency_keys.c.key == key)
        .values(status_code=status, body=body)
    )


def check_key(key: str) -> None:
    """Refuse an empty or over-long key: 422 ``invalid_idempotency_key``."""
    if not key or len(key) > MAX_KEY_LENGTH:
        raise ServiceError(
            422, "invalid_idempotency_key", f"An idempotency_key is 1 to {MAX_KEY_LENGTH} chars."
        )


def _as_is(status: int, body: str) -> tuple[int, str]:
    return status, body


_CLAIM_TRIES: Final = 3
"""How often a request whose claim lost a race (the key committed meanwhile) reads it again."""


def idempotent(
    service: IdempotentService,
    account: Account,
    key: str,
    digest: str,
    action: Callable[[], tuple[int, str]],
    *,
    stored: Callable[[int, str], tuple[int, str]] | None = None,
) -> tuple[int, str, bool]:
    """Run ``action`` at most once per (account, key) and return ``(status, body, replayed)``.

    The claim of the key, everything ``action`` writes through the service's
    transactions (they join this one) and the recorded answer commit in one
    transaction, or none of them does: a retry after any failure finds the
    answer (the request ran) or no record (it never ran) and runs it.

    Parameters
    ----------
    action
        Does the work and returns the HTTP status and the exact JSON body text;
        a `ServiceError` it raises is recorded as its error response (what it
        wrote in the transaction it raised from is undone, as without a key).
    stored
        What is recorded for a retry instead of the answer itself, given its
        status and body: for an answer that holds a secret shown once (a new
        API key), which must never be written to the store; the first caller
        still gets the answer itself. ``None``: the answer is recorded as it is.

    Raises
    ------
    ServiceError
        422 ``idempotency_key_reused``, 409 ``idempotency_in_flight`` (a claim
        an earlier version left), or 422 ``invalid_idempotency_key`` for an
        empty or over-long key.
    StoreError
        The database failed: nothing of the request was committed, or all of
        it was (a retry then replays it).
    """
    check_key(key)
    replay = recorded(service, account, key, digest)
    if replay is not None:
        return replay[0], replay[1], True
    for attempt in range(_CLAIM_TRIES):
        try:
            with service.write("run an idempotent request in", enclosing=True) as conn:
                replay = claim(conn, service, account, key, digest)
                if replay is not None:
                    return replay[0], replay[1], True
                try:
                    status, body = action()
                except ServiceError as exc:
                    status, body = exc.status, canonical_json(exc.body())
                record(conn, account, key, *(stored or _as_is)(status, body))
            return status, body, False
        except StoreError as exc:
            # another request with the key committed first (PostgreSQL): read its answer
            if not isinstance(exc.__cause__, sa.exc.IntegrityError) or attempt + 1 == _CLAIM_TRIES:
                raise
    raise AssertionError("unreachable")
