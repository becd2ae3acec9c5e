"""The bare step's lane answers byte for byte as the step route does (S-API-3, S-SVC-2, S-SVC-4).

`StepLane` answers ``POST /api/v1/runs/{id}/step`` without a body itself
(with or without an ``Idempotency-Key`` header). Two services on two stores
with one replay clock run the same calls, one app with the lane and one with
the lane taken out: every status, header and body byte must agree, errors
included.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from conftest import make_service, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario.routes import create_app
from tradeleague.league.scenario.steplane import StepLane


@dataclass
class Side:
    """One app: its client, its two accounts' keys and the run under test."""

    client: TestClient
    key: str
    other: str
    run: str = ""

    def new_run(self) -> None:
        made = self.client.post(
            "/api/v1/runs", json={"scenario": "syn"}, headers={"X-API-Key": self.key}
        )
        assert made.status_code == 201
        self.run = str(made.json()["id"])

    def post(self, path: str, headers: dict[str, str]) -> tuple[int, object, bytes]:
        filled = {
            name: value.replace("KEY", self.key).replace("OTHER", self.other)
            for name, value in headers.items()
        }
        answer = self.client.post(path.replace("RUN", self.run), headers=filled)
        # run ids are random: each side's id reads RUN (ids have one length, so do the bodies)
        return (
            answer.status_code,
            answer.headers.raw,
            answer.content.replace(self.run.encode(), b"RUN"),
        )


def _side(stack: ExitStack, url: str, clock: ReplayClock, *, lane: bool) -> Side:
    service = make_service(url, clock)
    stack.callback(service.store.close)
    synthetic_scenario(service, bars=6)
    app = create_app(service)
    if not lane:
        app.lane = None  # every request through the framework's route
    client = stack.enter_context(TestClient(app))
    return Side(
        client, service.create_key("builder", Tier.PRO), service.create_key("someone", Tier.PRO)
    )


@pytest.fixture
def laned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the run id of every request the lane answered itself."""
    seen: list[str] = []
    answer = StepLane._step

    async def counted(self: StepLane, run_id: str, *rest: Any) -> None:
        seen.append(run_id)
        await answer(self, run_id, *rest)

    monkeypatch.setattr(StepLane, "_step", counted)
    return seen


@pytest.fixture
def sides(tmp_path: Path, clock: ReplayClock, laned: list[str]) -> Iterator[tuple[Side, Side]]:
    with ExitStack() as stack:
        lane = _side(stack, f"sqlite:///{tmp_path / 'lane.db'}", clock, lane=True)
        route = _side(stack, f"sqlite:///{tmp_path / 'route.db'}", clock, lane=False)
        lane.new_run()
        route.new_run()
        yield lane, route


def _same(sides: tuple[Side, Side], path: str, headers: dict[str, str] | None = None) -> int:
    lane, route = (side.post(path, headers or {}) for side in sides)
    assert lane == route
    assert lane[2].startswith(b"{")  # a JSON body, never an empty answer
    return lane[0]


def test_bare_steps_and_their_errors_are_byte_identical_to_the_route(
    sides: tuple[Side, Side], laned: list[str]
) -> None:
    """S-API-3, S-SVC-4: the lane's answers equal the route's, to the byte and header."""
    mine = {"X-API-Key": "KEY"}
    assert _same(sides, "/api/v1/runs/RUN/step", {"X-API-Key": "nope"}) == 401
    assert _same(sides, "/api/v1/runs/RUN/step") == 401  # no key: the route answers
    assert _same(sides, "/api/v1/runs/RUN/step", {"X-API-Key": "OTHER"}) == 404
    assert _same(sides, "/api/v1/runs/nosuchrun/step", mine) == 404
    assert _same(sides, "/api/v1/runs/bad-id!/step", mine) == 422
    statuses = [_same(sides, "/api/v1/runs/RUN/step", mine) for _ in range(6)]
    assert statuses == [200] * 5 + [409]  # the run completed on its last bar
    # the lane took the bare steps (8), never the keyless one or the bad id
    assert laned == [sides[0].run] * 2 + ["nosuchrun"] + [sides[0].run] * 6


def test_keyed_steps_take_the_lane_and_replay_as_the_route_does(
    sides: tuple[Side, Side], laned: list[str]
) -> None:
    """S-SVC-1: a step with an Idempotency-Key header runs once and replays, as the route's."""
    once = {"X-API-Key": "KEY", "Idempotency-Key": '"k1"'}
    assert _same(sides, "/api/v1/runs/RUN/step", once) == 200
    assert _same(sides, "/api/v1/runs/RUN/step", once) == 200  # replayed, same header
    assert _same(sides, "/api/v1/runs/RUN/step", {**once, "Idempotency-Key": "k2"}) == 200
    assert _same(sides, "/api/v1/runs/nosuchrun/step", {**once, "Idempotency-Key": "k3"}) == 404
    assert _same(sides, "/api/v1/runs/nosuchrun/step", {**once, "Idempotency-Key": "k3"}) == 404
    assert laned == [sides[0].run] * 3 + ["nosuchrun"] * 2


def test_steps_with_a_bad_idempotency_key_or_a_bearer_token_take_the_route(
    sides: tuple[Side, Side], laned: list[str]
) -> None:
    """S-SVC-1, S-SVC-4: what the lane does not read itself, the route answers."""
    mine = {"X-API-Key": "KEY"}
    assert _same(sides, "/api/v1/runs/RUN/step", {**mine, "Idempotency-Key": '"open'}) == 422
    assert _same(sides, "/api/v1/runs/RUN/step", {**mine, "Idempotency-Key": '""'}) == 422
    assert _same(sides, "/api/v1/runs/RUN/step", {"Authorization": "Bearer KEY"}) == 200
    assert laned == []


def test_the_lane_reads_the_first_api_key_header_as_the_route_does(
    sides: tuple[Side, Side],
) -> None:
    """S-SVC-4: an empty first X-API-Key is no key, whatever follows (one answer for both)."""
    for side in sides:
        answer = side.client.post(
            f"/api/v1/runs/{side.run}/step",
            headers=[("X-API-Key", ""), ("X-API-Key", side.key)],
        )
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "missing_api_key"
