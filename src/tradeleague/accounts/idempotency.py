"""Idempotency keys with the semantics Stripe documents (S-SVC-1).

A client sends ``idempotency_key`` in the JSON body of ``trades`` or ``step``.
The first request with a key is *claimed* (recorded as in flight, committed),
carried out, and its response recorded. Then, for 24 hours (by default):

- the same key with the same parameters replays the first response, byte for byte;
- the same key with different parameters is 422 ``idempotency_key_reused``;
- the same key while the first request is still in flight is 409
  ``idempotency_in_flight``.

Client errors (4xx) are recorded and replayed like successes; a server error
releases the key, so a retry runs again. A claim is a lease: if the release
itself never commits (the database went away mid-request), the key stays in
flight only for ``IN_FLIGHT_LEASE``; after that a retry with the same
parameters claims it again and runs the request. The step's own work is one
transaction, so a request cut before it committed changed nothing. One gap
remains: a server killed after the step committed but before its response
was recorded leaves a claim whose retry, after the lease, steps again;
closing it means recording the response inside the step's transaction.
Keys are scoped to the account and expire ``idempotency_ttl`` after their
first use (the service's preset: the scenario benchmark's `ServicePreset`
holds the seed's 24 hours), measured on the injected clock.
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
    "fingerprint",
    "idempotent",
]

MAX_KEY_LENGTH: Final = 255
"""The longest ``idempotency_key`` accepted, in characters."""

IN_FLIGHT_LEASE: Final = timedelta(seconds=60)
"""How long a claimed key with no recorded response blocks a retry (409) before it lapses."""


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

    def write(self, doing: str) -> AbstractContextManager[sa.Connection]:
        """Return a writer's transaction."""
        ...


def fingerprint(method: str, path: str, params: Mapping[str, object]) -> str:
    """Return the SHA-256 of a request's method, path and parameters (key excluded)."""
    body = {k: v for k, v in params.items() if k != "idempotency_key"}
    text = canonical_json({"method": method, "path": path, "params": body})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _claim(
    service: IdempotentService, account: Account, key: str, digest: str
) -> tuple[int, str] | None:
    now = service.clock.now()
    where = (idempotency_keys.c.account == account.name, idempotency_keys.c.key == key)
    with service.write("claim an idempotency key in") as conn:
        row = conn.execute(
            sa.select(idempotency_keys).where(*where).with_for_update()
        ).one_or_none()
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
        lapsed = row.status_code is None and now - row.created_at >= IN_FLIGHT_LEASE
        if lapsed and row.request_hash == digest:
            conn.execute(sa.update(idempotency_keys).where(*where).values(created_at=now))
            return None
    if row.request_hash != digest:
        raise ServiceError(
            422,
            "idempotency_key_reused",
            "This idempotency_key was used with different parameters; use a new key.",
        )
    if row.status_code is None or row.body is None:
        raise ServiceError(
            409,
            "idempotency_in_flight",
            "A request with this idempotency_key is still in progress; retry shortly.",
        )
    return int(row.status_code), str(row.body)


def idempotent(
    service: IdempotentService,
    account: Account,
    key: str,
    digest: str,
    action: Callable[[], tuple[int, str]],
) -> tuple[int, str, bool]:
    """Run ``action`` at most once per (account, key) and return ``(status, body, replayed)``.

    Parameters
    ----------
    action
        Does the work and returns the HTTP status and the exact JSON body text;
        a `ServiceError` it raises is recorded as its error response.

    Raises
    ------
    ServiceError
        422 ``idempotency_key_reused``, 409 ``idempotency_in_flight``, or 422
        ``invalid_idempotency_key`` for an empty or over-long key.
    """
    if not key or len(key) > MAX_KEY_LENGTH:
        raise ServiceError(
            422, "invalid_idempotency_key", f"An idempotency_key is 1 to {MAX_KEY_LENGTH} chars."
        )
    try:
        replay = _claim(service, account, key, digest)
    except StoreError as exc:
        if isinstance(exc.__cause__, sa.exc.IntegrityError):
            raise ServiceError(
                409,
                "idempotency_in_flight",
                "A request with this idempotency_key is still in progress; retry shortly.",
            ) from None
        raise
    if replay is not None:
        return replay[0], replay[1], True
    where = (idempotency_keys.c.account == account.name, idempotency_keys.c.key == key)
    try:
        status, body = action()
    except ServiceError as exc:
        status, body = exc.status, canonical_json(exc.body())
    except BaseException:
        with service.write("release an idempotency key in") as conn:
            conn.execute(sa.delete(idempotency_keys).where(*where))
        raise
    with service.write("record an idempotent response in") as conn:
        conn.execute(
            sa.update(idempotency_keys).where(*where).values(status_code=status, body=body)
        )
    return status, body, False
