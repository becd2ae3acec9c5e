"""One naming rule across REST, MCP and the CLI (issue 29 item 5), table-driven.

A weights agent is given by id or name to the read API and to the operator's
CLI; a scenario by id or name to REST and MCP. Each reference has one outcome,
the same on every surface: the thing it names, nothing, or, for a name that
several share, 409 ``ambiguous_name`` listing the candidates' ids.
Rules: S-API-5 (a run is created in a scenario), S-SCN-2 (a name stands for its
latest version).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from tradeleague.accounts import Tier
from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.errors import ServiceError, TradeleagueError
from tradeleague.formats.weights import Division
from tradeleague.ids import resolve_name
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.league.weights import ops
from tradeleague.market import synthetic_dataset
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi

NOW = datetime(2026, 10, 6, 9, tzinfo=UTC)
SEASON_START = datetime(2026, 10, 5, tzinfo=UTC)

Outcome = tuple[str, ...]


def test_resolve_name_prefers_ids_then_unique_names() -> None:
    """The rule itself: an id is itself; a unique name its id; a shared name a 409."""
    known = [("A1", "solo"), ("B2", "twin"), ("C3", "twin"), ("D4", "A1")]
    assert resolve_name("A1", known, "agent") == "A1"
    assert resolve_name("solo", known, "agent") == "A1"
    assert resolve_name("nope", known, "agent") is None
    with pytest.raises(ServiceError) as shared:
        resolve_name("twin", known, "agent")
    assert (shared.value.status, shared.value.code) == (409, "ambiguous_name")
    assert shared.value.extra["candidates"] == [
        {"id": "B2", "name": "twin"},
        {"id": "C3", "name": "twin"},
    ]
    assert "B2, C3" in shared.value.message


@pytest.fixture
def world(sqlite_url: str) -> dict[str, Any]:
    """A weights season with agents solo, twin (open) and twin (pro); scenario wk, two versions."""
    clock = ReplayClock(NOW)
    store = open_store(sqlite_url)
    season = ops.create_season(
        store,
        clock,
        start=SEASON_START,
        symbols=["SPY", "QQQ"],
        decimals={"SPY": 8, "QQQ": 8},
        source="fixture",
    )
    made = {}
    for owner, (name, division) in enumerate(
        [("solo", Division.OPEN), ("twin", Division.OPEN), ("twin", Division.PRO)]
    ):
        state = ops.load_season(store, season)
        made[owner] = ops.add_agent(
            store,
            clock,
            state,
            name=name,
            owner=f"owner-{owner}",
            division=division,
            spec="baseline:cash",
            prompt="Hold cash.",
        )
    service = ScenarioService(store, clock)
    versions = []
    for seed in (1, 2):
        data = synthetic_dataset(1, 20, seed=seed, symbols=("SPY",))
        start, end = datetime(2024, 1, 2, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
        versions.append(provision_from_market(service, "wk", data, ("SPY",), start, end).id)
    return {
        "url": sqlite_url,
        "service": service,
        "season": season,
        "solo": made[0],
        "twins": sorted([made[1], made[2]]),
        "versions": versions,
    }


def _agent_table(w: dict[str, Any]) -> list[tuple[str, Outcome]]:
    """(reference, outcome): each the same over REST and the CLI."""
    return [
        (w["solo"], ("ok", w["solo"])),
        ("solo", ("ok", w["solo"])),
        (w["twins"][0], ("ok", w["twins"][0])),
        ("twin", ("ambiguous", *w["twins"])),
        ("nobody", ("missing",)),
    ]


def _rest_agent(http: httpx.Client, season: str, ref: str) -> Outcome:
    answer = http.get(f"/api/v1/weights/seasons/{season}/agents/{ref}")
    body = answer.json()
    if answer.status_code == 200:
        return ("ok", body["agent"]["id"])
    if answer.status_code == 409:
        assert body["error"]["code"] == "ambiguous_name"
        return ("ambiguous", *(c["id"] for c in body["error"]["candidates"]))
    assert answer.status_code == 404, answer.text
    return ("missing",)


def _page_agent(http: httpx.Client, w: dict[str, Any], ref: str) -> Outcome:
    page = f"/weights/{w['season']}/agents/"
    answer = http.get(page + ref)
    if answer.status_code == 200:
        ids = (w["solo"], *w["twins"])
        (which,) = [k for k in ids if http.get(page + k).text == answer.text]
        return ("ok", which)
    if answer.status_code == 409:
        assert all(t in answer.text for t in w["twins"]), answer.text
        return ("ambiguous", *w["twins"])
    assert answer.status_code == 404, answer.text
    return ("missing",)


def _cli_agent(w: dict[str, Any], ref: str) -> Outcome:
    runner = CliRunner()
    args = ["weights", "pause", "--season", w["season"], "--agent", ref, "--db", w["url"]]
    paused = runner.invoke(app, args)
    if paused.exit_code == 0:
        with open_store(w["url"]) as store:
            state = ops.load_season(store, w["season"])
        (which,) = [k for k, a in state.agents.items() if a.paused]
        back = ["weights", "resume", "--season", w["season"], "--agent", which, "--db", w["url"]]
        assert runner.invoke(app, back).exit_code == 0
        return ("ok", which)
    # what `tradeleague` prints as its one-sentence error (``main``), without the process
    assert isinstance(paused.exception, TradeleagueError), paused.output
    said = str(paused.exception)
    if "named" in said and all(t in said for t in w["twins"]):
        return ("ambiguous", *w["twins"])
    assert "no agent" in said, said
    return ("missing",)


def test_an_agent_by_id_or_name_is_the_same_over_rest_pages_and_the_cli(
    world: dict[str, Any],
) -> None:
    """Issue 29 item 5: the weights read API, its page and ``weights pause`` resolve alike."""
    with (
        serve_asgi(create_site(world["service"])) as base,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        for ref, want in _agent_table(world):
            assert _rest_agent(http, world["season"], ref) == want, ("REST", ref)
            assert _page_agent(http, world, ref) == want, ("page", ref)
            assert _cli_agent(world, ref) == want, ("CLI", ref)


@contextlib.asynccontextmanager
async def _mcp(base: str, key: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        yield client


def _scenario_table(w: dict[str, Any]) -> list[tuple[str, Outcome]]:
    old, latest = w["versions"]
    return [("wk", ("ok", latest)), (old, ("ok", old)), ("nope", ("missing",))]


async def test_a_scenario_by_id_or_name_is_the_same_over_rest_and_mcp(
    world: dict[str, Any],
) -> None:
    """S-API-5, S-SCN-2: create_run and the leaderboard take an id or a name, both ways."""
    service: ScenarioService = world["service"]
    key = service.create_key("namer", Tier.PRO)
    with serve_asgi(create_site(service)) as base:
        async with (
            _mcp(base, key) as mcp,
            httpx.AsyncClient(base_url=base, headers={"X-API-Key": key}, timeout=30) as rest,
        ):
            for ref, want in _scenario_table(world):
                made = await rest.post("/api/v1/runs", json={"scenario": ref})
                board = await rest.get("/api/v1/leaderboard", params={"scenario": ref})
                over_mcp = await mcp.call_tool("create_run", {"scenario": ref})
                board_mcp = await mcp.call_tool("leaderboard", {"scenario": ref})
                outcomes = {
                    "REST create_run": _of(made.status_code, made.json(), "scenario_id"),
                    "REST leaderboard": _of(board.status_code, board.json(), "scenario"),
                    "MCP create_run": _of_tool(over_mcp.structured_content, "scenario_id"),
                    "MCP leaderboard": _of_tool(board_mcp.structured_content, "scenario"),
                }
                assert outcomes == dict.fromkeys(outcomes, want), (ref, outcomes)


def _of(status: int, body: dict[str, Any], field: str) -> Outcome:
    if status >= 400:
        assert body["error"]["code"] == "scenario_not_found", body
        return ("missing",)
    found = body[field]
    return ("ok", found["id"] if isinstance(found, dict) else found)


def _of_tool(body: dict[str, Any] | None, field: str) -> Outcome:
    assert body is not None
    if "error" in body:
        return _of(404, body, field)
    return _of(200, body, field)
