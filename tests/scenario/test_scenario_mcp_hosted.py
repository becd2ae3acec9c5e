"""Hosted MCP: the official client over streamable HTTP at /mcp, with a Bearer key (issue 15)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

import tradeleague
from tradeleague.accounts import Tier
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.mcp_tools import TOOLS
from tradeleague.site import create_site
from tradeleague.testing.server import serve_asgi


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    first = result.content[0]
    assert isinstance(first, TextContent)
    value: dict[str, Any] = json.loads(first.text)
    return value


@contextlib.asynccontextmanager
async def _client(base: str, key: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        yield client


async def test_hosted_mcp_drives_a_run_to_its_results_with_a_bearer_key(
    service: ScenarioService, scenario: Scenario
) -> None:
    """S-SVC-6 hosted: every stdio tool plus list_runs and leaderboard; quantity as a number."""
    key = service.create_key("hosted-user", Tier.FREE)
    with serve_asgi(create_site(service)) as base:
        async with _client(base, key) as client:
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} == set(TOOLS)
            assert {"list_runs", "leaderboard"} <= set(TOOLS)
            run_id = _data(await client.call_tool("create_run", {"scenario": scenario.id}))["id"]
            order = {"symbol": "SPY", "side": "buy", "quantity": 10}
            queued = _data(await client.call_tool("trade", {"run_id": run_id, "orders": [order]}))
            assert queued["accepted"] == 1
            assert queued["queued"][0]["quantity"] in ("10", "10.000000")
            done = False
            while not done:
                done = bool(_data(await client.call_tool("step", {"run_id": run_id}))["done"])
            results = _data(await client.call_tool("results", {"run_id": run_id}))
            assert "return" in results
            runs = _data(await client.call_tool("list_runs", {}))["runs"]
            assert [r["id"] for r in runs] == [run_id]
            _data(await client.call_tool("publish", {"run_id": run_id}))
            board = _data(await client.call_tool("leaderboard", {"scenario": scenario.id}))
            assert [e["run_id"] for e in board["entries"]] == [run_id]
        with httpx.Client(timeout=30) as http:
            hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
            bare = http.post(f"{base}/mcp", json=hello)
            assert bare.status_code == 401
            assert bare.headers["www-authenticate"].startswith("Bearer")
            wrong = http.post(f"{base}/mcp", json=hello, headers={"Authorization": "Bearer tl_no"})
            assert wrong.status_code == 401


async def test_hosted_mcp_without_a_key_is_refused(service: ScenarioService) -> None:
    """The official client gets no session without a key, and is told why (issue 29)."""
    refused: BaseException | None = None
    with serve_asgi(create_site(service)) as base:
        try:
            async with _client(base, None) as client:
                await client.list_tools()
        except BaseException as exc:  # the SDK reports the 401 in its own exception group
            refused = exc
    assert refused is not None, "the client got a session without a key"
    assert "No API key was sent" in repr(refused), repr(refused)
    assert "Authorization: Bearer <key>" in repr(refused), repr(refused)


def test_stdio_refuses_to_create_an_empty_store(tmp_path: Path) -> None:
    """Over stdio, a missing SQLite file (--db or $TRADELEAGUE_DB) is an error, never created."""
    src = str(Path(tradeleague.__file__).parents[1])
    missing = tmp_path / "absent.db"
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": src}
    for extra, more_env in (
        ([], {}),
        (["--db", f"sqlite:///{missing}"], {}),
        ([], {"TRADELEAGUE_DB": f"sqlite:///{missing}"}),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tradeleague.mcp", *extra],
            cwd=tmp_path,
            env={**env, **more_env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert "no database" in done.stderr
    assert not list(tmp_path.iterdir())
