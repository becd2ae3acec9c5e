"""The plain step's own lane: ``POST /api/v1/runs/{id}/step`` without the framework's layers.

An agent's loop is mostly bare steps: no body, the key in ``X-API-Key``, and
often an ``Idempotency-Key`` header (the client library sends one with every
step). Routed through FastAPI, such a step spent about four times as
much CPU in routing, dependency solving and middleware as in the service call
itself (`bench/api_steps.py`, profiled with py-spy). `StepLane` sits in front
of the app and answers exactly those requests itself: the same service calls
(`ScenarioService.authenticate`, then the step, exactly once per
idempotency key as the route's `tradeleague.accounts.idempotent`), in a worker
thread and batched with the bare steps that arrive meanwhile (`StepBatcher`:
one transaction for all of them, one more for the keyed ones), the same
response bytes and headers, the same JSON error bodies. Every other request,
including a step with a body, a malformed or repeated ``Idempotency-Key``
header, a Bearer token, a ``Content-Encoding`` or a run id the route would
refuse, goes on to the app unchanged, so the route in
`tradeleague.league.scenario.routes` stays the one definition of the step and
its documentation.
"""

from __future__ import annotations

import re
from typing import Final

from tradeleague.accounts.idempotency import MAX_KEY_LENGTH
from tradeleague.api.app import call, dumps, idempotency_key
from tradeleague.api.bodies import ASGIApp, Receive, Scope, Send
from tradeleague.api.errors import service_error_response, store_error_response
from tradeleague.errors import ServiceError, StoreError
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.league.scenario.stepbatch import StepBatcher

__all__ = ["StepLane"]

_STEP: Final = re.compile(r"/api/v1/runs/([0-9A-Za-z]{1,40})/step")
"""The step route's path with a run id its ``ID_PATTERN`` accepts."""

_SEEN: Final = frozenset(
    (
        b"x-api-key",
        b"content-length",
        b"transfer-encoding",
        b"content-encoding",
        b"content-type",
        b"idempotency-key",
    )
)
"""Request headers whose presence decides whether a request may take the lane."""

_JSON_HEADERS: Final = b"application/json"


def _lane_key(headers: list[tuple[bytes, bytes]]) -> tuple[str, str | None] | None:
    """Return the request's API key and idempotency key if it may take the lane, else None.

    A bare step has a non-empty (first) ``X-API-Key``, no body (no
    ``Content-Length`` other than ``0``, no ``Transfer-Encoding``), no
    ``Content-Type`` or ``Content-Encoding``, and at most one well-formed
    ``Idempotency-Key`` header.
    """
    key: bytes | None = None
    once: str | None = None
    for name, value in headers:
        lower = name.lower()
        if lower not in _SEEN:
            continue
        if lower == b"x-api-key":
            if key is None:  # the first one counts, as for the route
                if not value:
                    return None
                key = value
        elif lower == b"idempotency-key":
            if once is not None:
                return None
            try:
                once = idempotency_key(value.decode("latin-1"), None)
            except ServiceError:  # the route's 422
                return None
            if not once or len(once) > MAX_KEY_LENGTH:
                return None
        elif lower != b"content-length" or value.strip() != b"0":
            return None
    return None if key is None else (key.decode("latin-1"), once)


class StepLane:
    """ASGI middleware answering bare steps directly (see the module notes).

    Parameters
    ----------
    app
        The app every other request goes to.
    service
        The scenario service the step route calls.
    """

    def __init__(self, app: ASGIApp, *, service: ScenarioService) -> None:
        # the route's own helpers: the same thread hand-off (`call`) and JSON text
        self.app = app
        self.service = service
        self._batcher = StepBatcher(service, call, dumps)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a bare step; hand anything else to the app."""
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            match = _STEP.fullmatch(scope["path"])
            if match is not None:
                keys = _lane_key(scope["headers"])
                if keys is not None:
                    await self._step(match.group(1), *keys, scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _step(
        self, run_id: str, key: str, once: str | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        try:
            # in a worker thread, never on the loop
            status, body, replayed = await self._batcher.reply(key, run_id, once)
        except ServiceError as exc:  # rendered as the app's handlers render them
            await service_error_response(exc)(scope, receive, send)
            return
        except StoreError as exc:
            await store_error_response(exc)(scope, receive, send)
            return
        headers = [
            (b"content-length", str(len(body)).encode("latin-1")),
            (b"content-type", _JSON_HEADERS),
        ]
        if replayed:  # where the route's response puts it: first
            headers.insert(0, (b"idempotent-replayed", b"true"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
