"""The plain step's own lane: ``POST /api/v1/runs/{id}/step`` without the framework's layers.

An agent's loop is mostly bare steps: no body, no idempotency key, the key in
``X-API-Key``. Routed through FastAPI, such a step spent about four times as
much CPU in routing, dependency solving and middleware as in the service call
itself (`bench/api_steps.py`, profiled with py-spy). `StepLane` sits in front
of the app and answers exactly those requests itself: the same service calls
(`ScenarioService.authenticate`, then the step), in a worker thread and
batched with the bare steps that arrive meanwhile (`StepBatcher`: one
transaction for all of them), the same response bytes and headers, the same
JSON error bodies. Every other request,
including a step with a body, an ``Idempotency-Key`` header, a Bearer token, a
``Content-Encoding`` or a run id the route would refuse, goes on to the app
unchanged, so the route in `tradeleague.league.scenario.routes` stays the one
definition of the step and its documentation.
"""

from __future__ import annotations

import re
from typing import Final

from tradeleague.api.app import call, dumps
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


def _lane_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    """Return the request's API key if the request is a bare step, else None.

    A bare step has a non-empty (first) ``X-API-Key``, no body (no
    ``Content-Length`` other than ``0``, no ``Transfer-Encoding``), and no
    ``Content-Type``, ``Content-Encoding`` or ``Idempotency-Key`` header.
    """
    key: bytes | None = None
    for name, value in headers:
        lower = name.lower()
        if lower not in _SEEN:
            continue
        if lower == b"x-api-key":
            if key is None:  # the first one counts, as for the route
                if not value:
                    return None
                key = value
        elif lower != b"content-length" or value.strip() != b"0":
            return None
    return None if key is None else key.decode("latin-1")


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
                key = _lane_key(scope["headers"])
                if key is not None:
                    await self._step(match.group(1), key, scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _step(
        self, run_id: str, key: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        try:
            body = await self._batcher.step(key, run_id)  # in a worker thread, never on the loop
        except ServiceError as exc:  # rendered as the app's handlers render them
            await service_error_response(exc)(scope, receive, send)
            return
        except StoreError as exc:
            await store_error_response(exc)(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-length", str(len(body)).encode("latin-1")),
                    (b"content-type", _JSON_HEADERS),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
