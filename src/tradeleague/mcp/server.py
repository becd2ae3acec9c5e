"""The scenario loop as MCP tools (S-SVC-6), on the same `ScenarioService` as REST.

Tools: ``list_scenarios``, ``create_run``, ``market``, ``trade``, ``step``,
``results``, ``publish``. Each acts for the account of the API key the
server was started with (``TRADELEAGUE_API_KEY``); runs count against the same
monthly quota as REST runs (S-SVC-5). A service error comes back as a tool
error whose text starts with the stable code (``run_not_found: ...``).

Run it over stdio with ``python -m tradeleague.mcp --db URL``.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from tradeleague.api.service import Account, ScenarioService, ServiceError
from tradeleague.money import qty
from tradeleague.sim import Order, Side

__all__ = ["TOOLS", "OrderArg", "build_server"]

TOOLS = ("list_scenarios", "create_run", "market", "trade", "step", "results", "publish")
"""The tool names, in loop order."""

_T = TypeVar("_T")


class OrderArg(BaseModel):
    """One market order: symbol, side, positive quantity (a number or decimal text, 10 or "0.5")."""

    symbol: str = Field(pattern=r"^[A-Za-z0-9.\-]{1,20}$")
    side: Literal["buy", "sell", "short", "cover"]
    quantity: Decimal = Field(gt=0, le=Decimal(10) ** 12, decimal_places=6, allow_inf_nan=False)


def _call(action: Callable[[], _T]) -> _T:
    try:
        return action()
    except ServiceError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None


def build_server(service: ScenarioService, account: Account) -> MCPServer:
    """Return an MCP server exposing the scenario loop for ``account`` (S-SVC-6)."""
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
        return {"scenarios": _call(service.scenarios)}

    @server.tool()
    def create_run(scenario: str) -> dict[str, Any]:
        """Create a run in a scenario version (counts against the monthly quota)."""
        return _call(lambda: service.create_run(account, scenario))

    @server.tool()
    def market(run_id: str) -> dict[str, Any]:
        """Read the current bar, recent history and the portfolio of a run."""
        return _call(lambda: service.market(account, run_id))

    @server.tool()
    def trade(run_id: str, orders: list[OrderArg]) -> dict[str, Any]:
        """Queue market orders (buy, sell, short, cover) to fill at the next bar's open."""
        parsed = [Order(o.symbol, Side(o.side), qty(o.quantity)) for o in orders]
        return _call(lambda: service.trade(account, run_id, parsed))

    @server.tool()
    def step(run_id: str) -> dict[str, Any]:
        """Advance the run one bar; returns fills, rejections, equity and done."""
        return _call(lambda: service.step(account, run_id))

    @server.tool()
    def results(run_id: str) -> dict[str, Any]:
        """Return the metrics of a completed run."""
        return _call(lambda: service.results(account, run_id))

    @server.tool()
    def publish(run_id: str) -> dict[str, Any]:
        """Publish a completed run to the public leaderboard."""
        return _call(lambda: service.publish(account, run_id))

    return server
