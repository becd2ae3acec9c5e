"""MCP as strict as REST (issue 29): the official client, hosted and over stdio, against REST.

Rules: S-SVC-6 (the loop as MCP tools, on the same service as REST), S-SVC-4
(a key on every agent call; a refusal that says how to fix it), S-API-2
(orders are validated: unknown fields refused).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

import tradeleague
from tradeleague.accounts import Tier
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.mcp_tools import TOOLS
from tradeleague.mcp.server import AUTH_ERROR
from tradeleague.site import create_site
from tradeleague.testing.server import serve_asgi

_SRC = str(Path(tradeleague.__file__).parents[1])


@pytest.fixture
def clock() -> ReplayClock:
    """Today: the stdio server keeps the wall clock, so runs made here must not look idle."""
    return ReplayClock(datetime.now(UTC).replace(microsecond=0))


@contextlib.asynccontextmanager
async def _hosted(base: str, headers: dict[str, str]) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        yield client


@contextlib.asynccontextmanager
async def _stdio(url: str, key: str | None, errlog: Any) -> AsyncIterator[Client]:
    env = {"PYTHONPATH": _SRC}
    if key is not None:
        env["TRADELEAGUE_API_KEY"] = key
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tradeleague.mcp", "--db", url], env=env
    )
    async with Client(stdio_client(params, errlog=errlog)) as client:
        yield client


def _outcome_mcp(result: CallToolResult) -> tuple[str, Any]:
    """Return ("ok", body) or ("error", (code, message)) of a tool call."""
    structured = result.structured_content
    assert structured is not None, result.content
    first = result.content[0]
    assert isinstance(first, TextContent)
    if result.is_error:
        error = structured["error"]
        assert first.text.startswith(f"{error['code']}: {error['message']}")
        return "error", (error["code"], error["message"])
    assert structured == json.loads(first.text), "the structured answer dropped a field"
    return "ok", structured


def _outcome_rest(answer: httpx.Response) -> tuple[str, Any]:
    body = answer.json()
    if answer.status_code >= 400:
        return "error", (body["error"]["code"], body["error"]["message"])
    return "ok", body


def _table(run_id: str, scenario: Scenario) -> list[tuple[str, dict[str, Any], str, str, Any]]:
    """(tool, arguments, REST method, REST path, REST body): the same call both ways."""
    limit = {"symbol": "SPY", "side": "buy", "quantity": 1, "type": "limit", "limit_price": 5}
    return [
        ("list_scenarios", {}, "GET", "/api/v1/scenarios", None),
        ("get_run", {"run_id": run_id}, "GET", f"/api/v1/runs/{run_id}", None),
        ("market", {"run_id": run_id}, "GET", f"/api/v1/runs/{run_id}/market", None),
        ("market", {"run_id": "NOPE"}, "GET", "/api/v1/runs/NOPE/market", None),
        (
            "trade",
            {"run_id": run_id, "orders": [limit]},
            "POST",
            f"/api/v1/runs/{run_id}/trades",
            {"orders": [limit]},
        ),
        (
            "trade",
            {"run_id": run_id, "orders": [{"symbol": "SPY", "side": "hold", "quantity": 1}]},
            "POST",
            f"/api/v1/runs/{run_id}/trades",
            {"orders": [{"symbol": "SPY", "side": "hold", "quantity": 1}]},
        ),
        (
            "trade",
            {"run_id": run_id, "orders": [], "colour": "red"},
            "POST",
            f"/api/v1/runs/{run_id}/trades",
            {"orders": [], "colour": "red"},
        ),
        ("results", {"run_id": run_id}, "GET", f"/api/v1/runs/{run_id}/results", None),
        ("create_run", {"scenario": "nope"}, "POST", "/api/v1/runs", {"scenario": "nope"}),
        (
            "leaderboard",
            {"scenario": scenario.config.name},
            "GET",
            f"/api/v1/leaderboard?scenario={scenario.config.name}",
            None,
        ),
        ("leaderboard", {"scenario": "nope"}, "GET", "/api/v1/leaderboard?scenario=nope", None),
    ]


async def test_hosted_and_stdio_tools_answer_as_rest_does(
    service: ScenarioService, scenario: Scenario, sqlite_url: str, tmp_path: Path
) -> None:
    """S-SVC-6, S-API-2: each call over hosted MCP, stdio MCP and REST has the same outcome."""
    key = service.create_key("contract", Tier.PRO)
    run_id = str(service.create_run(service.authenticate(key), scenario.id)["id"])
    bearer = {"Authorization": f"Bearer {key}"}
    with serve_asgi(create_site(service)) as base, (tmp_path / "err.log").open("w") as errlog:
        async with (
            _hosted(base, bearer) as hosted,
            _stdio(sqlite_url, key, errlog) as stdio,
            httpx.AsyncClient(base_url=base, headers=bearer, timeout=30) as rest,
        ):
            for tool, args, method, path, body in _table(run_id, scenario):
                want = _outcome_rest(await rest.request(method, path, json=body))
                for client in (hosted, stdio):
                    got = _outcome_mcp(await client.call_tool(tool, args))
                    assert got == want, (tool, args)
    outcomes = [t for t, *_ in _table(run_id, scenario)]
    assert set(outcomes) <= set(TOOLS)


async def test_unknown_order_fields_are_refused_not_dropped(
    service: ScenarioService, scenario: Scenario
) -> None:
    """S-API-2 over MCP: a limit order is refused with REST's 422 words, and nothing is queued."""
    key = service.create_key("strict", Tier.PRO)
    account = service.authenticate(key)
    run_id = str(service.create_run(account, scenario.id)["id"])
    order = {"symbol": "SPY", "side": "buy", "quantity": 1, "type": "limit", "limit_price": 5}
    with serve_asgi(create_site(service)) as base:
        async with _hosted(base, {"Authorization": f"Bearer {key}"}) as client:
            refused = await client.call_tool("trade", {"run_id": run_id, "orders": [order]})
    assert refused.is_error
    kind, (code, message) = _outcome_mcp(refused)
    assert (kind, code) == ("error", "invalid_request")
    assert "orders.0.type: Extra inputs are not permitted" in message
    assert "pydantic" not in message
    assert service.run(account, run_id)["queued"] == []


async def test_every_tool_teaches_its_arguments_and_answer(service: ScenarioService) -> None:
    """Each tool: a description, a description on every parameter, a typed output schema."""
    key = service.create_key("reader", Tier.FREE)
    with serve_asgi(create_site(service)) as base:
        async with _hosted(base, {"Authorization": f"Bearer {key}"}) as client:
            listed = (await client.list_tools()).tools
            info = client.server_info
    assert info is not None
    assert info.version == tradeleague.__version__
    assert {t.name for t in listed} == set(TOOLS)
    for tool in listed:
        assert len(tool.description or "") > 40, tool.name
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, tool.name
        for name, prop in schema.get("properties", {}).items():
            assert prop.get("description"), (tool.name, name)
        for model in schema.get("$defs", {}).values():
            for name, prop in model.get("properties", {}).items():
                assert prop.get("description"), (tool.name, name)
        out = tool.output_schema
        assert out is not None, tool.name
        assert out.get("properties"), tool.name
        assert out.get("type") == "object", tool.name


@pytest.mark.parametrize(
    ("headers", "reason", "said"),
    [
        ({}, "missing", "No API key was sent"),
        ({"Authorization": "Bearer tl_unknownunknownunknownunknown"}, "unknown", "not a known"),
        ({"X-API-Key": "Bearer tl_x"}, "malformed", "malformed"),
        ({"Authorization": "Token tl_x"}, "malformed", "without the Bearer scheme"),
    ],
)
async def test_a_refused_key_reads_the_same_over_hosted_mcp_as_over_rest(
    service: ScenarioService, headers: dict[str, str], reason: str, said: str
) -> None:
    """S-SVC-4: the SDK shows REST's sentence (where, why, the two forms), not a bare status."""
    with serve_asgi(create_site(service)) as base:
        rest = httpx.get(f"{base}/api/v1/scenarios", headers=headers, timeout=30)
        refused: BaseException | None = None
        try:
            async with _hosted(base, headers) as client:
                await client.list_tools()
        except BaseException as exc:  # the SDK raises it inside its task groups
            refused = exc
    assert rest.status_code == 401
    error = rest.json()["error"]
    assert error["reason"] == reason
    assert said in error["message"]
    assert "Authorization: Bearer" in error["message"]
    assert "X-API-Key" in error["message"]
    found = _mcp_error(refused)
    assert found.code == AUTH_ERROR
    assert found.message == error["message"]
    assert found.data["code"] == error["code"]


def _mcp_error(exc: BaseException | None) -> MCPError:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    assert isinstance(exc, MCPError), repr(exc)
    return exc


async def test_stdio_with_a_bad_key_says_why_on_stderr_and_in_every_tool_call(
    service: ScenarioService, scenario: Scenario, sqlite_url: str, tmp_path: Path
) -> None:
    """S-SVC-4 over stdio: one stderr line, the tools listed, each call refused with the fix."""
    log = tmp_path / "err.log"
    with log.open("w") as errlog:
        async with _stdio(sqlite_url, "tl_revokedrevokedrevokedrevoked", errlog) as client:
            assert {t.name for t in (await client.list_tools()).tools} == set(TOOLS)
            with pytest.raises(MCPError) as refused:
                await client.call_tool("create_run", {"scenario": scenario.id})
    assert refused.value.code == AUTH_ERROR
    assert "TRADELEAGUE_API_KEY" in refused.value.message
    assert "not a known key" in refused.value.message
    lines = [line for line in log.read_text().splitlines() if line.startswith("error:")]
    assert lines == [f"error: {refused.value.message}"]
