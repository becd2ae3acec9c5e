"""The REST API (FastAPI): the scenario agent loop, public reads, OpenAPI at ``/docs``.

Routers stay thin: each parses its request, calls `ScenarioService`, and
returns the JSON body. ``trades`` and ``step`` go through the idempotency
layer when the body carries an ``idempotency_key`` (S-SVC-1); the replayed
body is the stored text, byte for byte.

Routes are ``async``: each hands its whole service call to `call`, which runs
it in a worker thread, so the event loop (and ``/healthz``) never waits on the
database. One request is one service call, never one per dependency. A bare
step (no body, no idempotency key) is answered before routing by
`tradeleague.api.steplane.StepLane`, with the same calls and the same bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Final, Literal, TypeVar

from fastapi import (
    APIRouter,
    Body,
    Depends,
    FastAPI,
    Header,
    Path,
    Query,
    Request,
    Response,
    Security,
)
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from tradeleague import DISCLAIMER, __version__
from tradeleague.api.bodies import BoundedBodies, Receive, Scope, Send
from tradeleague.api.errors import install_error_handlers
from tradeleague.api.models import (
    ID_PATTERN,
    CreateRunIn,
    ErrorOut,
    PublicRunOut,
    ResultsOut,
    RunOut,
    StepIn,
    StepOut,
    TradesIn,
    TradesOut,
)
from tradeleague.api.reads import (
    changelog_payload,
    leaderboard_payload,
    run_payload,
    scenarios_payload,
)
from tradeleague.api.service import (
    Account,
    ScenarioService,
    ServiceError,
    fingerprint,
    idempotent,
)
from tradeleague.api.steplane import StepLane
from tradeleague.money import qty
from tradeleague.sim import Order, Side

__all__ = ["ScenarioApp", "call", "create_app", "dumps", "idempotency_key", "request_key"]

_T = TypeVar("_T")

_KEY = APIKeyHeader(name="X-API-Key", auto_error=False, description="Your API key.")
_BEARER = HTTPBearer(auto_error=False, description="Your API key as a Bearer token.")
_ERRORS: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorOut} for code in (401, 402, 404, 409, 422, 429)
}


def dumps(body: object) -> str:
    """Return the compact JSON text of a response body."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _json(body: object, status: int = 200, replayed: bool = False) -> Response:
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return Response(
        dumps(body) if not isinstance(body, str) else body,
        status,
        headers,
        media_type="application/json",
    )


async def get_service(request: Request) -> ScenarioService:
    """Return the app's service (override in tests with ``dependency_overrides``)."""
    service: ScenarioService = request.app.state.service
    return service


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


async def call(service: ScenarioService, work: Callable[[], _T]) -> _T:
    """Run ``work`` (blocking service calls) in a worker thread, never on the event loop.

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


ServiceDep = Annotated[ScenarioService, Depends(get_service)]


async def request_key(
    header: Annotated[str | None, Security(_KEY)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)],
) -> str | None:
    """Return the request's API key: ``X-API-Key``, else ``Authorization: Bearer``."""
    if header:
        return header
    return bearer.credentials if bearer is not None else None


KeyDep = Annotated[str | None, Depends(request_key)]
"""The request's ``X-API-Key`` (or Bearer token); each agent route authenticates it
(S-SVC-4) inside its one service call."""
RunId = Annotated[str, Path(pattern=ID_PATTERN, description="The run's id.")]
IdempotencyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description=(
            "A key that makes this request safe to retry (a structured-field string, "
            'e.g. "8e03978e"; a bare token is accepted too). Same meaning as the '
            "body's idempotency_key; if both are sent they must be equal."
        ),
    ),
]


def idempotency_key(header: str | None, field: str | None) -> str | None:
    """Return the request's idempotency key, from the header or the body field.

    The header is a structured-field string as the IETF draft
    (draft-ietf-httpapi-idempotency-key-header) defines it: printable ASCII
    in double quotes, with a backslash escaping a quote or a backslash; a bare
    token is read as it is.

    Raises
    ------
    ServiceError
        422 ``invalid_idempotency_key`` for a malformed header, or a header and
        a body field that differ.
    """
    if header is None:
        return field
    key = _sf_string(header.strip())
    if key is None:
        raise ServiceError(
            422, "invalid_idempotency_key", "The Idempotency-Key header is not a valid string."
        )
    if field is not None and field != key:
        raise ServiceError(
            422,
            "invalid_idempotency_key",
            "The Idempotency-Key header and the body's idempotency_key differ.",
        )
    return key


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


def _once(
    service: ScenarioService,
    account: Account,
    key: str | None,
    digest: str,
    action: Callable[[], dict[str, object]],
) -> Response:
    if key is None:
        return _json(action())
    status, text, replayed = idempotent(
        service, account, key, digest, lambda: (200, dumps(action()))
    )
    return _json(text, status, replayed)


def _agent_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1", tags=["agent loop"], responses=_ERRORS)

    @router.get("/scenarios", summary="List scenario versions")
    async def scenarios(service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            service.authenticate(key)
            return _json({"scenarios": service.scenarios()})

        return await call(service, work)

    @router.post("/runs", status_code=201, response_model=RunOut, summary="Create a run")
    async def create_run(body: CreateRunIn, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            account = service.authenticate(key)
            return _json(service.create_run(account, body.scenario), 201)

        return await call(service, work)

    @router.get("/runs", summary="List my runs")
    async def my_runs(
        service: ServiceDep,
        key: KeyDep,
        mine: Annotated[
            bool, Query(description="Only the caller's runs (the only list there is).")
        ] = True,
    ) -> Response:
        def work() -> Response:
            return _json({"runs": service.runs(service.authenticate(key))})

        return await call(service, work)

    @router.get("/runs/{run_id}", summary="One of my runs: status, bar, queued orders")
    async def one_run(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return _json(service.run(service.authenticate(key), run_id))

        return await call(service, work)

    @router.get("/runs/{run_id}/market", summary="Current bar, history, portfolio")
    async def market(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return _json(service.market(service.authenticate(key), run_id))

        return await call(service, work)

    @router.post("/runs/{run_id}/trades", response_model=TradesOut, summary="Queue orders")
    async def trades(
        run_id: RunId,
        body: TradesIn,
        service: ServiceDep,
        key: KeyDep,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        once = idempotency_key(idempotency, body.idempotency_key)
        orders = [Order(o.symbol, Side(o.side), qty(o.quantity)) for o in body.orders]
        params = {"orders": [[o.symbol, o.side.value, int(o.qty)] for o in orders]}
        digest = fingerprint("POST", f"/runs/{run_id}/trades", params)

        def work() -> Response:
            account = service.authenticate(key)
            return _once(
                service,
                account,
                once,
                digest,
                lambda: service.trade(account, run_id, orders),
            )

        return await call(service, work)

    @router.delete("/runs/{run_id}/orders/{order}", summary="Cancel a queued order")
    async def cancel_order(
        run_id: RunId,
        order: Annotated[
            int, Path(ge=0, le=10_000, description="The order's place in the queue, from 0.")
        ],
        service: ServiceDep,
        key: KeyDep,
    ) -> Response:
        def work() -> Response:
            return _json(service.cancel_order(service.authenticate(key), run_id, order))

        return await call(service, work)

    @router.post("/runs/{run_id}/step", response_model=StepOut, summary="Advance one bar")
    async def step(
        run_id: RunId,
        service: ServiceDep,
        key: KeyDep,
        body: Annotated[StepIn | None, Body()] = None,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        once = idempotency_key(idempotency, body.idempotency_key if body is not None else None)
        digest = fingerprint("POST", f"/runs/{run_id}/step", {})

        def work() -> Response:
            account = service.authenticate(key)
            return _once(service, account, once, digest, lambda: service.step(account, run_id))

        return await call(service, work)

    @router.get("/runs/{run_id}/results", response_model=ResultsOut, summary="Metrics")
    async def results(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return _json(service.results(service.authenticate(key), run_id))

        return await call(service, work)

    @router.post("/runs/{run_id}/publish", summary="Publish to the leaderboard")
    async def publish(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return _json(service.publish(service.authenticate(key), run_id))

        return await call(service, work)

    return router


def _public_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1", tags=["public"], responses={404: {"model": ErrorOut}})

    @router.get("/leaderboard", summary="Published runs ranked by a metric")
    async def leaderboard(
        service: ServiceDep,
        scenario: Annotated[str, Query(pattern=ID_PATTERN)],
        metric: Literal["return", "sharpe", "sortino", "max_drawdown", "volatility"] = "return",
    ) -> Response:
        def work() -> Response:
            return _json(leaderboard_payload(service, scenario, metric))

        # public reads may rank many runs: never on the event loop's thread, even on SQLite
        return await run_in_threadpool(work)

    @router.get("/scenario/changelog", summary="The changes that affect comparability, dated")
    async def scenario_changelog(service: ServiceDep) -> Response:
        return await run_in_threadpool(lambda: _json(changelog_payload(service)))

    @router.get("/leaderboard/scenarios", summary="Scenarios with published runs")
    async def leaderboard_scenarios(service: ServiceDep) -> Response:
        return await run_in_threadpool(lambda: _json(scenarios_payload(service)))

    @router.get("/runs/{run_id}/public", response_model=PublicRunOut, summary="A published run")
    async def public_run(run_id: RunId, service: ServiceDep) -> Response:
        return await run_in_threadpool(lambda: _json(run_payload(service, run_id)))

    return router


class ScenarioApp(FastAPI):
    """The REST app, with bare steps answered before any of the framework's layers.

    `StepLane` sits outside FastAPI's own middleware stack (error handling,
    body limits, routing): a trivial route cost a request three times the
    bare server's CPU (`bench/api_steps.py`), and a bare step needs none of
    them. ``lane`` is ``None`` to send every request through the framework.
    """

    lane: StepLane | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: through the lane when there is one."""
        lane = self.lane
        if lane is None:
            await super().__call__(scope, receive, send)
        else:
            await lane(scope, receive, send)

    async def framework(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request through FastAPI itself (what the lane hands on)."""
        await super().__call__(scope, receive, send)


def create_app(service: ScenarioService) -> ScenarioApp:
    """Return the REST app serving ``service``; OpenAPI at ``/openapi.json``.

    The offline docs pages (``/docs``, ``/redoc``) are the site's to add
    (``web.docs.install_offline_docs``, as ``tradeleague.site`` does).
    """
    app = ScenarioApp(
        title="tradeleague",
        version=__version__,
        description=(
            "Drive one deterministic simulator through frozen market history: read the "
            "market, queue orders, step, fetch results, publish.\n\n" + DISCLAIMER
        ),
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service
    app.add_middleware(BoundedBodies)
    app.lane = StepLane(app.framework, service=service)  # outside: a bare step has no body
    install_error_handlers(app)
    app.include_router(_public_router())
    app.include_router(_agent_router())

    # on the event loop itself: a health check must not queue behind busy worker threads
    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
