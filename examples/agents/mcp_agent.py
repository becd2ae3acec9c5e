"""An external agent that plays a scenario to its end over MCP, with the official SDK.

It speaks to the tools hosted at ``/mcp`` (streamable HTTP, a Bearer key):
``create_run``, then ``market`` -> ``trade`` -> ``step`` until done, then
``results`` and ``publish``. Each tool answers structured content typed by
its output schema; a tool error carries the API's error body.

Run it against a served store (``TRADELEAGUE_URL`` defaults to
``http://127.0.0.1:8000``)::

    TRADELEAGUE_API_KEY=tl_... python examples/agents/mcp_agent.py wk
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from decimal import Decimal
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool and return its structured answer; raise on a tool error."""
    result = await client.call_tool(tool, arguments)
    body = result.structured_content or {}
    if result.is_error:
        raise RuntimeError(f"{tool}: {body.get('error', result.content)}")
    return body


async def main(scenario: str) -> int:
    """Play ``scenario`` (an id or a name) to its end; print the results as JSON."""
    url = os.environ.get("TRADELEAGUE_URL", "http://127.0.0.1:8000").rstrip("/")
    headers = {"Authorization": f"Bearer {os.environ['TRADELEAGUE_API_KEY']}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        run_id = (await call(client, "create_run", scenario=scenario))["id"]
        while True:
            market = await call(client, "market", run_id=run_id)
            if market["done"]:
                break
            symbol = sorted(market["bars"])[-1]
            bar = market["bars"][symbol]
            held = Decimal(market["portfolio"]["positions"].get(symbol, "0"))
            if Decimal(bar["close"]) < Decimal(bar["open"]):
                await call(client, "trade", run_id=run_id, orders=[
                    {"symbol": symbol, "side": "buy", "quantity": "1"}
                ])  # fmt: skip
            elif held > 0:
                order = {"symbol": symbol, "side": "sell", "quantity": str(held)}
                await call(client, "trade", run_id=run_id, orders=[order])
            await call(client, "step", run_id=run_id)
        results = await call(client, "results", run_id=run_id)
        await call(client, "publish", run_id=run_id)
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "wk")))
