"""The scenario loop as MCP tools, driven by the mcp SDK's own client over stdio (S-SVC-6)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent

from tradeleague.accounts import Tier
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.mcp_tools import TOOLS


def _text(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def _data(result: CallToolResult) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(_text(result))
    return value


async def test_mcp_tools_run_a_scenario_end_to_end(
    service: ScenarioService, scenario: Scenario, sqlite_url: str, tmp_path: Path
) -> None:
    """S-SVC-6: list_scenarios, create_run, market, trade, step, results, publish over stdio."""
    key = service.create_key("mcp-user", Tier.FREE)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tradeleague.mcp", "--db", sqlite_url],
        env={"TRADELEAGUE_API_KEY": key, "PYTHONPATH": str(Path(__file__).parents[2] / "src")},
        cwd=str(tmp_path),
    )
    async with Client(params) as client:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == set(TOOLS)
        listing = _data(await client.call_tool("list_scenarios", {}))
        assert [s["id"] for s in listing["scenarios"]] == [scenario.id]
        run = _data(await client.call_tool("create_run", {"scenario": scenario.id}))
        run_id = run["id"]
        market = _data(await client.call_tool("market", {"run_id": run_id}))
        assert market["index"] == 0
        queued = _data(
            await client.call_tool(
                "trade",
                {"run_id": run_id, "orders": [{"symbol": "SPY", "side": "buy", "quantity": "2"}]},
            )
        )
        assert queued["accepted"] == 1
        numbers = [
            {"symbol": "SPY", "side": "buy", "quantity": 1},
            {"symbol": "SPY", "side": "buy", "quantity": 0.5},
        ]
        as_numbers = await client.call_tool("trade", {"run_id": run_id, "orders": numbers})
        assert not as_numbers.is_error, _text(as_numbers)  # issue 11: MCP takes numbers
        assert _data(as_numbers)["accepted"] == 2
        early = await client.call_tool("results", {"run_id": run_id})
        assert early.is_error
        assert "run_not_complete" in _text(early)
        first = _data(await client.call_tool("step", {"run_id": run_id}))
        assert first["fills"][0]["symbol"] == "SPY"
        done = bool(first["done"])
        while not done:
            done = bool(_data(await client.call_tool("step", {"run_id": run_id}))["done"])
        results = _data(await client.call_tool("results", {"run_id": run_id}))
        published = _data(await client.call_tool("publish", {"run_id": run_id}))
    assert published["published"] is True
    account = service.authenticate(key)
    assert service.results(account, str(run_id))["return"] == results["return"]
