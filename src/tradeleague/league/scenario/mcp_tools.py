"""The scenario loop as MCP tools (S-SVC-6), on the same `ScenarioService` as REST.

Tools: ``list_scenarios``, ``create_run``, ``list_runs``, ``get_run``,
``market``, ``trade``, ``cancel_order``, ``step``, ``results``, ``publish``
and ``leaderboard``. Each acts for the account of an API key: over stdio the
one the server was started with (``TRADELEAGUE_API_KEY``,
`open_stdio_server`), hosted at ``/mcp`` the request's Bearer key
(`ScenarioMcp` on the generic `tradeleague.mcp.hosted`).

Each tool is the REST route's twin (`tradeleague.mcp.server.strict_tool`):
its arguments are the REST body's model (`tradeleague.league.scenario.models`,
unknown fields refused), its output schema the REST response's, its
description the operation's (`tradeleague.league.scenario.operations`). Runs
count against the same monthly quota as REST runs (S-SVC-5); ``trade`` and
``step`` honour an ``idempotency_key`` as REST does (S-SVC-1). A service
error comes back as a tool error whose text starts with the stable code
(``run_not_found: ...``) and whose structured content is the REST error body.

Run it over stdio with ``python -m tradeleague.mcp --db URL``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, Field

from tradeleague.accounts import Account, Credential, fingerprint, idempotent
from tradeleague.accounts.credentials import ENV_KEY
from tradeleague.api.app import dumps
from tradeleague.clock import WallClock
from tradeleague.errors import ServiceError
from tradeleague.league.scenario.models import (
    CancelOut,
    CreateRunIn,
    LeaderboardIn,
    LeaderboardOut,
    MarketOut,
    NoArgs,
    PublishOut,
    ResultsOut,
    RunIn,
    RunOut,
    RunsOut,
    RunStateOut,
    RunStepIn,
    ScenariosOut,
    StepOut,
    TradeIn,
    TradesOut,
)
from tradeleague.league.scenario.operations import OPERATIONS
from tradeleague.league.scenario.reads import leaderboard_payload
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.mcp.hosted import HostedMcp
from tradeleague.mcp.server import AccountOf, acting_for, new_server, strict_tool
from tradeleague.money import qty
from tradeleague.sim import Order, Side
from tradeleague.store import Store

__all__ = [
    "MCP",
    "TOOLS",
    "CancelIn",
    "ScenarioMcp",
    "ScenarioTools",
    "build_server",
    "open_stdio_server",
]

TOOLS = (
    "list_scenarios",
    "create_run",
    "list_runs",
    "get_run",
    "market",
    "trade",
    "cancel_order",
    "step",
    "results",
    "publish",
    "leaderboard",
)
"""The tool names, in loop order."""


class CancelIn(RunIn):
    """The arguments of ``cancel_order``: the run and the order's place in its queue."""

    order: int = Field(ge=0, le=10_000, description="The order's place in the queue, from 0.")


def _once(
    service: ScenarioService,
    account: Account,
    key: str | None,
    digest: str,
    action: Callable[[], dict[str, object]],
) -> dict[str, Any]:
    """Return ``action()``, at most once per idempotency ``key`` (S-SVC-1), as REST does."""
    if key is None:
        return action()
    status, text, _ = idempotent(service, account, key, digest, lambda: (200, dumps(action())))
    body: dict[str, Any] = json.loads(text)
    if status >= 400:  # a recorded refusal is replayed as the same error
        error = dict(body["error"])
        code, message = str(error.pop("code")), str(error.pop("message"))
        raise ServiceError(status, code, message, error)
    return body


def _tools(service: ScenarioService, who: AccountOf) -> list[Tool]:
    def tool(
        name: str,
        arguments: type[BaseModel],
        output: type[BaseModel],
        action: Callable[[Any], Mapping[str, Any]],
    ) -> Tool:
        op = OPERATIONS[name]
        return strict_tool(name, f"{op.summary}. {op.description}", arguments, output, action)

    def trade(args: TradeIn) -> dict[str, Any]:
        account = who()
        orders = [Order(o.symbol, Side(o.side), qty(o.quantity)) for o in args.orders]
        params = {"orders": [[o.symbol, o.side.value, int(o.qty)] for o in orders]}
        digest = fingerprint("POST", f"/runs/{args.run_id}/trades", params)
        return _once(
            service,
            account,
            args.idempotency_key,
            digest,
            lambda: service.trade(account, args.run_id, orders),
        )

    def step(args: RunStepIn) -> dict[str, Any]:
        account = who()
        digest = fingerprint("POST", f"/runs/{args.run_id}/step", {})
        return _once(
            service,
            account,
            args.idempotency_key,
            digest,
            lambda: service.step(account, args.run_id),
        )

    def scenarios(_: NoArgs) -> dict[str, Any]:
        who()
        return {"scenarios": service.scenarios()}

    def board(args: LeaderboardIn) -> dict[str, Any]:
        who()
        return leaderboard_payload(service, args.scenario, args.metric)

    return [
        tool("list_scenarios", NoArgs, ScenariosOut, scenarios),
        tool("create_run", CreateRunIn, RunOut, lambda a: service.create_run(who(), a.scenario)),
        tool("list_runs", NoArgs, RunsOut, lambda _: {"runs": service.runs(who())}),
        tool("get_run", RunIn, RunStateOut, lambda a: service.run(who(), a.run_id)),
        tool("market", RunIn, MarketOut, lambda a: service.market(who(), a.run_id)),
        tool("trade", TradeIn, TradesOut, trade),
        tool(
            "cancel_order",
            CancelIn,
            CancelOut,
            lambda a: service.cancel_order(who(), a.run_id, a.order),
        ),
        tool("step", RunStepIn, StepOut, step),
        tool("results", RunIn, ResultsOut, lambda a: service.results(who(), a.run_id)),
        tool("publish", RunIn, PublishOut, lambda a: service.publish(who(), a.run_id)),
        tool("leaderboard", LeaderboardIn, LeaderboardOut, board),
    ]


def build_server(service: ScenarioService, account: Account | AccountOf) -> MCPServer:
    """Return an MCP server exposing the scenario loop for ``account`` (S-SVC-6).

    ``account`` is the account itself (stdio) or a function that returns the
    account of the request being served (hosted), called on every tool call;
    a function that raises `ServiceError` 401 makes every tool call a refused
    key (`tradeleague.mcp.server.auth_error`).
    """
    return new_server(
        "tradeleague-scenario",
        "Trade through frozen market history: list_scenarios, create_run, then repeat "
        "market -> trade -> step until done, then results and publish. Money and quantities "
        "are decimal strings (US dollars, units); returns are fractions of one.",
        _tools(service, acting_for(account)),
    )


def open_stdio_server(store: Store, key: str | None) -> MCPServer:
    """Return the tools on ``store`` for API key ``key``'s account (``python -m tradeleague.mcp``).

    A missing or refused key still serves the tools (a client can list them),
    says why on standard error in one line, and answers every tool call with
    the refusal as an MCP error: the REST API's sentence.
    """
    service = ScenarioService(store, WallClock())
    try:
        account: Account | AccountOf = service.authenticate(Credential(key or None, ENV_KEY))
    except ServiceError as exc:
        refused = exc  # the except clause unbinds its own name when it ends
        print(f"error: {refused.message}", file=sys.stderr, flush=True)

        def account() -> Account:
            raise refused

    return build_server(service, account)


class ScenarioMcp(HostedMcp):
    """The tools hosted at ``/mcp`` (`tradeleague.mcp.hosted.HostedMcp`) on ``service``.

    Parameters
    ----------
    service
        The scenario service the tools act on; its accounts check each request's key.
    """

    def __init__(self, service: ScenarioService) -> None:
        super().__init__(service.authenticate, lambda who: build_server(service, who))


class ScenarioTools:
    """The scenario benchmark's ``mcp`` part (`tradeleague.mcp.plugin.McpPart`)."""

    def hosted(self, service: Any) -> HostedMcp:
        """Return the tools served at ``/mcp`` on the site's scenario service."""
        if not isinstance(service, ScenarioService):
            raise TypeError("the scenario benchmark's tools need the site's ScenarioService")
        return ScenarioMcp(service)

    def stdio(self, store: Store, key: str | None) -> MCPServer:
        """Return the tools on ``store`` for API key ``key``'s account."""
        return open_stdio_server(store, key)


MCP = ScenarioTools()
