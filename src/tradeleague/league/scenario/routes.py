"""The scenario benchmark's REST routes: the agent loop and its public reads.

Routers stay thin: each parses its request, calls `ScenarioService`, and
returns the JSON body. Every write of a run (``runs``, ``trades``, ``step``,
cancelling an order) goes through the idempotency layer when the request
carries an ``Idempotency-Key`` header, or the body's ``idempotency_key``
(``trades`` and ``step``) (S-SVC-1): the effect and its recorded answer
commit together, and the replayed body is the stored text, byte for byte.
They are built on the generic HTTP kit of `tradeleague.api.app` (the app
factory, the worker-thread hand-off `call`, keys and idempotency). A bare
step (no body, no idempotency key) is answered before routing by
`tradeleague.league.scenario.steplane.StepLane`, with the same calls and the
same bytes.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from tradeleague import DISCLAIMER
from tradeleague.accounts import fingerprint
from tradeleague.api.app import (
    IdempotencyHeader,
    KeyDep,
    LanedApp,
    call,
    idempotency_key,
    idempotent_response,
    json_response,
    new_app,
)
from tradeleague.api.models import error_responses
from tradeleague.league.scenario.models import (
    ID_PATTERN,
    METRIC,
    REF_PATTERN,
    BoardScenariosOut,
    CancelOut,
    ChangelogOut,
    CreateRunIn,
    LeaderboardOut,
    MarketOut,
    PublicRunOut,
    PublishOut,
    ResultsOut,
    RunOut,
    RunsOut,
    RunStateOut,
    ScenariosOut,
    StepIn,
    StepOut,
    TradesIn,
    TradesOut,
)
from tradeleague.league.scenario.operations import FIRST_RUN, OPERATIONS
from tradeleague.league.scenario.reads import (
    changelog_payload,
    leaderboard_payload,
    run_payload,
    scenarios_payload,
)
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.league.scenario.steplane import StepLane
from tradeleague.money import qty
from tradeleague.sim import Order, Side

__all__ = ["create_app", "get_service", "install_scenario_routes"]

_ERRORS = error_responses(401, 402, 404, 409, 422, 429)


class _Doc(TypedDict):
    summary: str
    description: str


def _doc(operation: str) -> _Doc:
    """Return a route's summary and description: the operation's, as the MCP tool says it."""
    said = OPERATIONS[operation]
    return {"summary": said.summary, "description": said.description}


async def get_service(request: Request) -> ScenarioService:
    """Return the app's service (override in tests with ``dependency_overrides``)."""
    service: ScenarioService = request.app.state.service
    return service


ServiceDep = Annotated[ScenarioService, Depends(get_service)]
RunId = Annotated[str, Path(pattern=ID_PATTERN, description="The run's id.")]


def _agent_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1", tags=["agent loop"], responses=_ERRORS)

    @router.get("/scenarios", response_model=ScenariosOut, **_doc("list_scenarios"))
    async def scenarios(service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            service.authenticate(key)
            return json_response({"scenarios": service.scenarios()})

        return await call(service, work)

    @router.post("/runs", status_code=201, response_model=RunOut, **_doc("create_run"))
    async def create_run(
        body: CreateRunIn,
        service: ServiceDep,
        key: KeyDep,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        once = idempotency_key(idempotency, None)
        digest = fingerprint("POST", "/runs", {"scenario": body.scenario})

        def work() -> Response:
            account = service.authenticate(key)
            return idempotent_response(
                service,
                account,
                once,
                digest,
                lambda: service.create_run(account, body.scenario),
                201,
            )

        return await call(service, work)

    @router.get("/runs", response_model=RunsOut, **_doc("list_runs"))
    async def my_runs(
        service: ServiceDep,
        key: KeyDep,
        mine: Annotated[
            bool, Query(description="Only the caller's runs (the only list there is).")
        ] = True,
    ) -> Response:
        def work() -> Response:
            return json_response({"runs": service.runs(service.authenticate(key))})

        return await call(service, work)

    @router.get("/runs/{run_id}", response_model=RunStateOut, **_doc("get_run"))
    async def one_run(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return json_response(service.run(service.authenticate(key), run_id))

        return await call(service, work)

    @router.get("/runs/{run_id}/market", response_model=MarketOut, **_doc("market"))
    async def market(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return json_response(service.market(service.authenticate(key), run_id))

        return await call(service, work)

    @router.post("/runs/{run_id}/trades", response_model=TradesOut, **_doc("trade"))
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
            return idempotent_response(
                service,
                account,
                once,
                digest,
                lambda: service.trade(account, run_id, orders),
            )

        return await call(service, work)

    @router.delete(
        "/runs/{run_id}/orders/{order}", response_model=CancelOut, **_doc("cancel_order")
    )
    async def cancel_order(
        run_id: RunId,
        order: Annotated[
            int, Path(ge=0, le=10_000, description="The order's place in the queue, from 0.")
        ],
        service: ServiceDep,
        key: KeyDep,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        once = idempotency_key(idempotency, None)
        digest = fingerprint("DELETE", f"/runs/{run_id}/orders/{order}", {})

        def work() -> Response:
            account = service.authenticate(key)
            return idempotent_response(
                service,
                account,
                once,
                digest,
                lambda: service.cancel_order(account, run_id, order),
            )

        return await call(service, work)

    @router.post("/runs/{run_id}/step", response_model=StepOut, **_doc("step"))
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
            return idempotent_response(
                service, account, once, digest, lambda: service.step(account, run_id)
            )

        return await call(service, work)

    @router.get("/runs/{run_id}/results", response_model=ResultsOut, **_doc("results"))
    async def results(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return json_response(service.results(service.authenticate(key), run_id))

        return await call(service, work)

    @router.post("/runs/{run_id}/publish", response_model=PublishOut, **_doc("publish"))
    async def publish(run_id: RunId, service: ServiceDep, key: KeyDep) -> Response:
        def work() -> Response:
            return json_response(service.publish(service.authenticate(key), run_id))

        return await call(service, work)

    return router


def _public_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1", tags=["public"], responses=error_responses(404))

    @router.get("/leaderboard", response_model=LeaderboardOut, **_doc("leaderboard"))
    async def leaderboard(
        service: ServiceDep,
        scenario: Annotated[
            str,
            Query(
                pattern=REF_PATTERN,
                description="A scenario version's id, or a scenario's name (its latest version).",
            ),
        ],
        metric: Annotated[METRIC, Query(description="What to rank by.")] = "return",
    ) -> Response:
        def work() -> Response:
            return json_response(leaderboard_payload(service, scenario, metric))

        # public reads may rank many runs: never on the event loop's thread, even on SQLite
        return await run_in_threadpool(work)

    @router.get("/scenario/changelog", response_model=ChangelogOut, **_doc("changelog"))
    async def scenario_changelog(service: ServiceDep) -> Response:
        return await run_in_threadpool(lambda: json_response(changelog_payload(service)))

    @router.get(
        "/leaderboard/scenarios",
        response_model=BoardScenariosOut,
        **_doc("leaderboard_scenarios"),
    )
    async def leaderboard_scenarios(service: ServiceDep) -> Response:
        return await run_in_threadpool(lambda: json_response(scenarios_payload(service)))

    @router.get("/runs/{run_id}/public", response_model=PublicRunOut, **_doc("public_run"))
    async def public_run(run_id: RunId, service: ServiceDep) -> Response:
        return await run_in_threadpool(lambda: json_response(run_payload(service, run_id)))

    return router


def install_scenario_routes(app: LanedApp, service: ScenarioService) -> None:
    """Serve ``service`` on ``app``: its routes, the bare step's lane, the docs' walkthrough."""
    app.state.service = service
    app.description = f"{FIRST_RUN}\n{app.description}"  # what /docs shows first
    app.lane = StepLane(app.framework, service=service)  # outside: a bare step has no body
    app.include_router(_public_router())
    app.include_router(_agent_router())


def create_app(service: ScenarioService) -> LanedApp:
    """Return the REST app serving ``service``; OpenAPI at ``/openapi.json``, docs at ``/docs``."""
    app = new_app(
        "Drive one deterministic simulator through frozen market history: read the "
        "market, queue orders, step, fetch results, publish.\n\n" + DISCLAIMER
    )
    install_scenario_routes(app, service)
    return app
