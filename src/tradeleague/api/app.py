"""The generic HTTP kit: the app factory, JSON responses, the worker threads, keys.

A format's REST routes are built on these (the scenario benchmark's agent
loop: `tradeleague.league.scenario.routes`). Routes are ``async``: each hands
its whole service call to `call`, which runs it in a worker thread, so the
event loop (and ``/healthz``) never waits on the database. One request is one
service call, never one per dependency. A request made with an idempotency
key goes through `idempotent_response` (S-SVC-1): the replayed body is the
stored text, byte for byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Final, TypeVar

from fastapi import Depends, FastAPI, Header, Request, Response, Security
from fastapi.openapi.utils import get_openapi
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from tradeleague import __version__
from tradeleague.accounts import Account, Credential, credential_from_headers
from tradeleague.accounts.idempotency import IdempotentService, idempotent
from tradeleague.api.bodies import ASGIApp, BoundedBodies, Receive, Scope, Send
from tradeleague.api.errors import install_error_handlers
from tradeleague.api.models import ERROR_CODES, ErrorOut
from tradeleague.errors import ServiceError

__all__ = [
    "IdempotencyHeader",
    "KeyDep",
    "LanedApp",
    "call",
    "dumps",
    "idempotency_key",
    "idempotent_response",
    "json_response",
    "new_app",
    "request_key",
]

_T = TypeVar("_T")

_KEY = APIKeyHeader(name="X-API-Key", auto_error=False, description="Your API key.")
_BEARER = HTTPBearer(auto_error=False, description="Your API key as a Bearer token.")


def dumps(body: object) -> str:
    """Return the compact JSON text of a response body."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_response(body: object, status: int = 200, replayed: bool = False) -> Response:
    """Return ``body`` (an object, or JSON text already made) as a JSON response.

    ``replayed`` marks an idempotent request's stored answer
    (``Idempotent-Replayed: true``).
    """
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return Response(
        dumps(body) if not isinstance(body, str) else body,
        status,
        headers,
        media_type="application/json",
    )


_WORKERS: Final = ThreadPoolExecutor(max_workers=40, thread_name_prefix="tradeleague-call")
"""The threads service calls run in (as many as AnyIO's default pool: PostgreSQL calls wait)."""


def _settle(future: asyncio.Future[_T], value: _T | None, error: BaseException | None) -> None:
    if future.done():  # the awaiting request was cancelled
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)  # type: ignore[arg-type]


def _run(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[_T],
    context: contextvars.Context,
    work: Callable[[], _T],
) -> None:
    try:
        value = context.run(work)
    except BaseException as error:  # handed to the awaiting request, as a thread pool does
        loop.call_soon_threadsafe(_settle, future, None, error)
    else:
        loop.call_soon_threadsafe(_settle, future, value, None)


async def call(service: object, work: Callable[[], _T]) -> _T:
    """Run ``work`` (blocking service calls) in a worker thread, never on the event loop.

    ``service`` is the service ``work`` calls (any; it says whose call it is).

    On SQLite too: inline calls were a little faster per step, but under load
    they queued ``/healthz`` and every read behind the steps (`bench/load.py`:
    200 scenario clients and 100 readers, `/healthz` p99 158 ms inline, 34 ms
    in threads, on a shared two-core machine).

    The hand-off is a thread pool whose worker settles an asyncio future
    through ``call_soon_threadsafe``, with the caller's context variables
    copied in as AnyIO's ``to_thread`` copies them: AnyIO's capacity limiter
    and cancel scopes, and then ``run_in_executor``'s chained futures, cost a
    bare step as much CPU as the step's own SQL (`bench/api_steps.py`,
    profiled with py-spy). A cancelled request still
    lets its call finish in the thread (its transaction commits or rolls back
    whole), as before.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()
    _WORKERS.submit(_run, loop, future, contextvars.copy_context(), work)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        # as AnyIO's to_thread: the work is not abandoned midway; wait, then cancel
        with contextlib.suppress(BaseException):
            await future
        raise


async def request_key(
    request: Request,
    header: Annotated[str | None, Security(_KEY)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)],
) -> Credential:
    """Return the request's API key and where it was seen: ``X-API-Key``, else Bearer.

    ``header`` and ``bearer`` put both forms in the OpenAPI document; the
    headers themselves are read by `credential_from_headers`, which also
    notices an Authorization header without the Bearer scheme.
    """
    return credential_from_headers(request.headers)


KeyDep = Annotated[Credential, Depends(request_key)]
"""The request's API key as it was presented (`Credential`); each agent route
authenticates it (S-SVC-4) inside its one service call."""
_KEY_CHARS: Final = r"[\x21-\x7E]"
"""What an idempotency key is made of, in the body as in the header: printable ASCII, no space."""
_BARE_KEY: Final = r"[\x21\x23-\x7E]{1,255}"
"""A bare token: the key itself, without a double quote (a quote starts the quoted form)."""
_QUOTED_KEY: Final = r'"(?:[\x21\x23-\x5B\x5D-\x7E]|\\["\\]){1,255}"'
"""The structured-field string: the key in double quotes, a quote or backslash escaped."""
IDEMPOTENCY_HEADER_PATTERN: Final = f"^(?:{_BARE_KEY}|{_QUOTED_KEY})$"
"""Every ``Idempotency-Key`` header value read, and no other (the document's pattern)."""
_MAX_KEY: Final = 255

IdempotencyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=IDEMPOTENCY_HEADER_PATTERN,
        description=(
            "A key that makes this request safe to retry: the body's idempotency_key, "
            "1 to 255 printable ASCII characters without spaces, as a structured-field "
            'string (e.g. "8e03978e") or a bare token. If the body carries one too, the '
            "two must be equal (else 409 idempotency_key_conflict)."
        ),
    ),
]


def idempotency_key(header: str | None, field: str | None) -> str | None:
    """Return the request's idempotency key, from the header or the body field.

    The header is a structured-field string as the IETF draft
    (draft-ietf-httpapi-idempotency-key-header) defines it: printable ASCII
    in double quotes, with a backslash escaping a quote or a backslash; a bare
    token is read as it is. Either way the key is the body field's: 1 to 255
    printable ASCII characters without spaces (`IDEMPOTENCY_HEADER_PATTERN`
    documents exactly the values read).

    Raises
    ------
    ServiceError
        422 ``invalid_idempotency_key`` for a malformed header; 409
        ``idempotency_key_conflict`` for a header and a body field that differ
        (each well formed: which one the client meant cannot be told).
    """
    if header is None:
        return field
    key = _sf_string(header)  # the server took off the white space around it (RFC 9110)
    if key is None or not 1 <= len(key) <= _MAX_KEY or not _KEY_RE.fullmatch(key):
        raise ServiceError(
            422,
            "invalid_idempotency_key",
            "The Idempotency-Key header is not 1 to 255 printable ASCII characters "
            "without spaces, bare or in double quotes.",
        )
    if field is not None and field != key:
        raise ServiceError(
            409,
            "idempotency_key_conflict",
            "The Idempotency-Key header and the body's idempotency_key differ: "
            "send one of them, or the same key in both.",
        )
    return key


_KEY_RE: Final = re.compile(f"{_KEY_CHARS}+")


def _sf_string(raw: str) -> str | None:
    if not raw.startswith('"'):
        return raw if raw.isascii() and raw.isprintable() and '"' not in raw else None
    out: list[str] = []
    escaped = False
    for index, char in enumerate(raw[1:], start=1):
        if escaped:
            if char not in '"\\':
                return None
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            return "".join(out) if index == len(raw) - 1 else None
        elif not (" " <= char <= "~"):
            return None
        else:
            out.append(char)
    return None


def idempotent_response(
    service: IdempotentService,
    account: Account,
    key: str | None,
    digest: str,
    action: Callable[[], dict[str, object]],
    status: int = 200,
) -> Response:
    """Return ``action``'s answer as JSON (``status``), at most once per key (S-SVC-1).

    Without a key the action just runs. With one, the action's writes and its
    answer commit in one transaction, and a retry gets the same bytes
    (`tradeleague.accounts.idempotent`).
    """
    if key is None:
        return json_response(action(), status)
    answered, text, replayed = idempotent(
        service, account, key, digest, lambda: (status, dumps(action()))
    )
    return json_response(text, answered, replayed)


_ERROR_REF: Final = "#/components/schemas/ErrorOut"


def _house_statuses(op: dict[str, Any]) -> list[str]:
    """Return the error statuses every operation like ``op`` may answer, whatever its route.

    The layers in front of every route answer them: a body is bounded and read
    (`BoundedBodies`: 400 ``invalid_body``, 413, 415), a body, path, query or
    header is validated (422 ``invalid_request``), and a request that reaches
    the store may find it unavailable (503 ``store_unavailable``).
    """
    statuses = ["503"]
    if op.get("parameters") or "requestBody" in op:
        statuses.append("422")
    if "requestBody" in op:
        statuses += ["400", "413", "415"]
    return statuses


def _openapi(app: FastAPI) -> dict[str, Any]:
    """Return the app's OpenAPI document with every error answer as the one error body.

    FastAPI documents its own 422 with its validation schema; every error this
    API sends is `ErrorOut` (`tradeleague.api.errors`), so each 4xx and 5xx
    answer of each operation is documented as that, with the codes of its status,
    and the statuses the layers in front of every route answer are added to
    each operation (`_house_statuses`): the document lists every status a
    route can answer (schemathesis holds it to that, every check).
    """
    if app.openapi_schema is not None:
        return app.openapi_schema
    doc = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    defs = ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(defs.pop("$defs", {}))
    schemas["ErrorOut"] = defs
    for item in doc.get("paths", {}).values():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            responses = op.setdefault("responses", {})
            for status in _house_statuses(op):
                responses.setdefault(status, {"description": "An error."})
            for status, answer in responses.items():
                if status[:1] in ("4", "5"):
                    answer["content"] = {"application/json": {"schema": {"$ref": _ERROR_REF}}}
                    codes = [c for c, (s, _) in ERROR_CODES.items() if str(s) == status]
                    if codes:
                        answer["description"] = "Error: " + ", ".join(codes) + "."
    app.openapi_schema = doc
    return doc


Probe = Callable[[], tuple[bytes, bytes]]
"""A probe's answer: its content type and body, made from memory (never from the store)."""


def _health() -> tuple[bytes, bytes]:
    return b"application/json", b'{"status":"ok"}'


class LanedApp(FastAPI):
    """A REST app that may answer some requests before any of the framework's layers.

    ``probes`` are answered first, by path, for a ``GET``: ``/healthz``
    (and ``/metrics`` where the site serves it), made from memory on the event
    loop itself, before the body limits, the routing, the lane and every
    worker thread, so a probe never waits on a request that touches the
    store (issue 24: ``/healthz`` took seconds behind PostgreSQL steps;
    ``bench/load.py --store postgresql``). A probe's other methods go on to
    the framework, whose route answers them (405 with ``Allow``).

    ``lane`` is ASGI middleware put outside FastAPI's own middleware stack
    (error handling, body limits, routing), handed `framework` for every
    request it does not answer itself: the scenario benchmark's bare steps
    (`tradeleague.league.scenario.steplane`), where a trivial route cost a
    request three times the bare server's CPU (`bench/api_steps.py`).
    ``None`` sends every request through the framework.
    """

    lane: ASGIApp | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probes: dict[str, Probe] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: a probe at once, else through the lane when there is one."""
        if scope["type"] == "http" and scope["method"] == "GET":
            probe = self.probes.get(scope["path"])
            if probe is not None:
                await _answer_probe(probe, send)
                return
        lane = self.lane
        if lane is None:
            await super().__call__(scope, receive, send)
        else:
            await lane(scope, receive, send)

    async def framework(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request through FastAPI itself (what the lane hands on)."""
        await super().__call__(scope, receive, send)


async def _answer_probe(probe: Probe, send: Send) -> None:
    kind, body = probe()
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode("latin-1"))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def new_app(description: str) -> LanedApp:
    """Return a REST app with the house's parts, and no routes of a format yet.

    OpenAPI at ``/openapi.json``, offline docs at ``/docs`` and ``/redoc``,
    bounded request bodies, every error as the JSON error body, and
    ``/healthz``. ``description`` heads the OpenAPI document.
    """
    app = LanedApp(
        title="tradeleague",
        version=__version__,
        description=description,
        docs_url=None,
        redoc_url=None,
    )
    app.probes = {"/healthz": _health}  # answered before any layer (`LanedApp`)
    app.add_middleware(BoundedBodies)
    install_error_handlers(app)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]

    # the route answers the other methods (405 with Allow); a GET or HEAD is the probe's
    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
