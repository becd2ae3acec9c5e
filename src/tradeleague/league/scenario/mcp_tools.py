"""The scenario loop as MCP tools (S-SVC-6), on the same `ScenarioService` as REST.

Tools: ``list_scenarios``, ``create_run``, ``market``, ``trade``, ``step``,
``results``, ``publish``, ``list_runs`` and ``leaderboard``. Each acts for the
account of an API key: over stdio the one the server was started with
(``TRADELEAGUE_API_KEY``, `open_stdio_server`), hosted at ``/mcp`` the
request's Bearer key (`ScenarioMcp` on the generic `tradeleague.mcp.hosted`).
Runs count against the same monthly quota as REST runs (S-SVC-5), and
quantities are read as REST reads them (``10`` or ``"10.5"``). A service error
comes back as a tool error whose text starts with the stable code
(``run_not_found: ...``).

Run it over stdio with ``python -m tradeleague.mcp --db URL``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from tradeleague.accounts import Account
from tradeleague.clock import WallClock
from tradeleague.league.scenario.reads import leaderboard_payload
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.mcp.hosted import HostedMcp
from tradeleague.mcp.server import AccountOf, acting_for, tool_call
from tradeleague.money import qty
from tradeleague.sim import Order, Side
from tradeleague.store import Store

__all__ = [
    "MCP",
    "TOOLS",
    "OrderArg",
    "ScenarioMcp",
    "ScenarioTools",
    "build_server",
    "open_stdio_server",
]

TOOLS = (
    "list_scenarios",
    "create_run",
    "market",
    "trade",
    "step",
    "results",
    "publish",
    "list_runs",
    "leaderboard",
)
"""The tool names, in loop order."""


class OrderArg(BaseModel):
    """One market order: symbol, side, positive quantity (a number or decimal text, 10 or "0.5")."""

    symbol: str = Field(pattern=r"^[A-Za-z0-9.\-]{1,20}$")
    side: Literal["buy", "sell", "short", "cover"]
    quantity: Decimal = Field(gt=0, le=Decimal(10) ** 12, decimal_places=6, allow_inf_nan=False)


def build_server(service: ScenarioService, account: Account | AccountOf) -> MCPServer:
    """Return an MCP server exposing the scenario loop for ``account`` (S-SVC-6).

    ``account`` is the account itself (stdio) or a function that returns the
    account of the request being served (hosted), called on every tool call.
    """
    who = acting_for(account)

    server: MCPServer = MCPServer(
        "tradeleague-scenario",
        instructions=(
            "Trade through frozen market history: list_scenarios, create_run, then repeat "
            "market -> trade -> step until done, then results and publish."
        ),
    )

    @server.tool()
    def list_scenarios() -> dict[str, Any]:
        """List the scenario versions you can run."""
        tool_call(who)
        return {"scenarios": tool_call(service.scenarios)}

    @server.tool()
    def create_run(scenario: str) -> dict[str, Any]:
        """Create a run in a scenario version (counts against the monthly quota)."""
        return tool_call(lambda: service.create_run(who(), scenario))

    @server.tool()
    def market(run_id: str) -> dict[str, Any]:
        """Read the current bar, recent history and the portfolio of a run."""
        return tool_call(lambda: service.market(who(), run_id))

    @server.tool()
    def trade(run_id: str, orders: list[OrderArg]) -> dict[str, Any]:
        """Queue market orders (buy, sell, short, cover) to fill at the next bar's open."""
        parsed = [Order(o.symbol, Side(o.side), qty(str(o.quantity))) for o in orders]
        return tool_call(lambda: service.trade(who(), run_id, parsed))

    @server.tool()
    def step(run_id: str) -> dict[str, Any]:
        """Advance the run one bar; returns fills, rejections, equity and done."""
        return tool_call(lambda: service.step(who(), run_id))

    @server.tool()
    def results(run_id: str) -> dict[str, Any]:
        """Return the metrics of a completed run."""
        return tool_call(lambda: service.results(who(), run_id))

    @server.tool()
    def publish(run_id: str) -> dict[str, Any]:
        """Publish a completed run to the public leaderboard."""
        return tool_call(lambda: service.publish(who(), run_id))

    @server.tool()
    def list_runs() -> dict[str, Any]:
        """List your runs, oldest first: id, scenario, status, bar index."""
        return {"runs": tool_call(lambda: service.runs(who()))}

    @server.tool()
    def leaderboard(
        scenario: str,
        metric: Literal["return", "sharpe", "sortino", "max_drawdown", "volatility"] = "return",
    ) -> dict[str, Any]:
        """Return a scenario's published runs ranked by a metric."""
        tool_call(who)
        return tool_call(lambda: leaderboard_payload(service, scenario, metric))

    return server


def open_stdio_server(store: Store, key: str | None) -> MCPServer:
    """Return the tools on ``store`` for API key ``key``'s account (``python -m tradeleague.mcp``).

    Raises
    ------
    ServiceError
        401 when ``key`` is missing or not a valid key.
    """
    service = ScenarioService(store, WallClock())
    return build_server(service, service.authenticate(key))


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
