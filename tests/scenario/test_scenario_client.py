"""The client library (issue 29 item 4): sync and async, typed errors, safe retries, examples.

Rules: S-SVC-1 (an idempotency key makes a retried step happen once), S-SVC-4
(a refused key), S-API-1..5 (the loop, played by the example agents).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

import tradeleague
from tradeleague.accounts import Tier
from tradeleague.accounts.tables import idempotency_keys
from tradeleague.client import (
    AsyncScenarioClient,
    AuthError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    OrderSpec,
    ScenarioClient,
)
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.site import create_site
from tradeleague.store.transactions import CommitPoint
from tradeleague.testing.server import serve_asgi

_ROOT = Path(tradeleague.__file__).parents[2]


@pytest.fixture
def clock() -> ReplayClock:
    """Today: the example agents' server keeps no clock of its own, the service's is this."""
    return ReplayClock(datetime.now(UTC).replace(microsecond=0))


class _LoseFirstAnswer(httpx.BaseTransport):
    """Send every request; drop the first step's answer on the way back (a lost response)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.steps: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path.endswith("/step"):
            self.steps.append(request)
            if len(self.steps) == 1:
                response.read()
                response.close()
                raise httpx.ReadError("connection lost", request=request)
        return response

    def close(self) -> None:
        self.inner.close()


def test_a_lost_step_answer_is_retried_under_its_key_and_steps_once(
    service: ScenarioService, scenario: Scenario
) -> None:
    """S-SVC-1: the retry carries the same idempotency key; the run moved one bar, not two."""
    key = service.create_key("retry", Tier.PRO)
    transport = _LoseFirstAnswer()
    pauses: list[float] = []
    with (
        serve_asgi(create_site(service)) as base,
        ScenarioClient(base, key, transport=transport, sleep=pauses.append) as api,
    ):
        run_id = api.create_run(scenario.config.name)["id"]
        step = api.step(run_id)
        assert step["index"] == 1
        assert api.market(run_id)["index"] == 1
    first, second = transport.steps
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    assert first.content == second.content == b"", "the key is a header: a bare step's body"
    assert pauses == [0.25]


class _Wire(httpx.BaseTransport):
    """Send every request as it is; keep each write's method, path, key header and body."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.writes: list[tuple[str, str, str | None, bytes]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET":
            key = request.headers.get("Idempotency-Key")
            self.writes.append((request.method, request.url.path, key, request.content))
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


class _LoseEachAnswerOnce:
    """The commit seam: close the connection just after the commit that records each new
    idempotency key, once per key: every keyed request happens, and its answer is lost."""

    def __init__(self) -> None:
        self.cut: set[str] = set()

    def __call__(self, at: CommitPoint, conn: sa.Connection) -> None:
        if at != "committed":
            return
        new = set(conn.execute(sa.select(idempotency_keys.c.key)).scalars()) - self.cut
        if new:
            self.cut |= new
            conn.connection.dbapi_connection.close()  # type: ignore[union-attr]
            conn.exec_driver_sql("SELECT 1")  # the driver's error: the connection is gone


def test_the_clients_retries_after_lost_answers_do_each_write_once(
    service: ScenarioService, scenario: Scenario
) -> None:
    """S-SVC-1: run creation, trades, a cancel and a step each lose their first answer after
    their commit; the client retries each under its Idempotency-Key header (not the body) and
    each happened once: one run, two orders queued, one cancelled, one bar stepped."""
    key = service.create_key("lost", Tier.PRO)
    wire, cutter, pauses = _Wire(), _LoseEachAnswerOnce(), list[float]()
    with (
        serve_asgi(create_site(service)) as base,
        ScenarioClient(base, key, transport=wire, sleep=pauses.append) as api,
    ):
        service.store.commit_fault = cutter
        try:
            run_id = api.create_run(scenario.config.name)["id"]
            queued = api.trade(run_id, [OrderSpec("SPY", "buy", "2"), OrderSpec("SPY", "buy", "3")])
            cancelled = api.cancel_order(run_id, 1)
            step = api.step(run_id)
        finally:
            service.store.commit_fault = None
        assert [r["id"] for r in api.runs()] == [run_id], "one run, not two"
        state = api.run(run_id)
    assert len(cutter.cut) == 4, "each write lost its first answer"
    assert len(queued["queued"]) == 2
    assert cancelled["cancelled"]["quantity"] == "3"
    assert step["index"] == 1
    assert state["index"] == 1, "stepped once"
    assert state["queued"] == []
    tries = wire.writes
    assert len(tries) == 8, "each write sent twice"
    for first, again in zip(tries[::2], tries[1::2], strict=True):
        assert first == again, "the retry is the same request, its key the same"
        assert first[2] is not None
        assert b"idempotency_key" not in first[3], "the key travels as the header"
    assert len({w[2] for w in tries}) == 4, "a key per call"


def test_errors_are_exceptions_with_the_apis_code_and_message(
    service: ScenarioService, scenario: Scenario
) -> None:
    """Each family its class; the code, the sentence and every field of the error kept."""
    key = service.create_key("errors", Tier.PRO)
    with serve_asgi(create_site(service)) as base:
        with ScenarioClient(base, "tl nope") as stranger, pytest.raises(AuthError) as refused:
            stranger.scenarios()
        assert refused.value.error["reason"] == "malformed"
        with ScenarioClient(base, key) as api:
            run_id = api.create_run(scenario.id)["id"]
            with pytest.raises(NotFoundError) as missing:
                api.market("NOPE")
            assert missing.value.code == "run_not_found"
            with pytest.raises(ConflictError):
                api.results(run_id)
            with pytest.raises(InvalidRequestError) as invalid:
                api.trade(run_id, [OrderSpec("SPY", "sell", "1")])
            assert invalid.value.error["reason"] == "exceeds_position"
            assert "nothing to sell" in invalid.value.message


async def test_the_async_client_plays_a_run_to_its_results(
    service: ScenarioService, scenario: Scenario
) -> None:
    """S-API-1..4 from asyncio: the same methods, awaited."""
    key = service.create_key("async", Tier.PRO)
    with serve_asgi(create_site(service)) as base:
        async with AsyncScenarioClient(base, key) as api:
            run = await api.create_run(scenario.config.name)
            await api.trade(run["id"], [OrderSpec("SPY", "buy", "2")])
            done = False
            while not done:
                done = (await api.step(run["id"]))["done"]
            results = await api.results(run["id"])
            board = await api.read("leaderboard/scenarios")
    assert results["steps"] == run["last_index"]
    assert board["scenarios"][0]["id"] == scenario.id


@pytest.mark.parametrize("agent", ["rest_agent.py", "mcp_agent.py"])
def test_the_example_agents_play_a_scenario_to_the_end(
    service: ScenarioService, scenario: Scenario, agent: str
) -> None:
    """examples/agents: each finishes a run against a served store and publishes it."""
    key = service.create_key(f"example-{agent}", Tier.PRO)
    with serve_asgi(create_site(service)) as base:
        done = subprocess.run(
            [sys.executable, str(_ROOT / "examples" / "agents" / agent), scenario.config.name],
            env={
                "PATH": os.environ.get("PATH", ""),
                "PYTHONPATH": str(_ROOT / "src"),
                "TRADELEAGUE_URL": base,
                "TRADELEAGUE_API_KEY": key,
            },
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["status"] == "complete"
    assert [r for _, _, r in service.published(scenario.id)]
