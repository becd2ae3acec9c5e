"""A scenario service's log against the event vocabulary (C-4).

Runs through the service's REST API: one to its last bar and published, one
liquidated (the hand-made scenario and the reference agent, S-LIQ-1), one left
idle until abandoned (S-SVC-3). Every event written validates against its
kind's payload schema for the scenario format.
"""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from test_scenario_reference import run_agent  # type: ignore[import-not-found]

from conftest import hand_scenario, serve  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.client import ScenarioClient
from tradeleague.clock import ReplayClock
from tradeleague.events import EventKind, check_events
from tradeleague.events.scenario import (
    SCENARIO_RUN_ABANDONED,
    SCENARIO_RUN_COMPLETED,
    SCENARIO_RUN_PUBLISHED,
    SCENARIO_RUN_STARTED,
)
from tradeleague.league.scenario import Scenario, ScenarioService


def _start(api: TestClient, scenario: Scenario) -> str:
    r = api.post("/api/v1/runs", json={"scenario": scenario.id})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def test_scenario_run_events_match_their_schemas(
    service: ScenarioService, clock: ReplayClock, api: TestClient, scenario: Scenario
) -> None:
    """C-4: started, filled, liquidated, completed, published and abandoned runs all validate."""
    done = _start(api, scenario)
    bought = api.post(
        f"/api/v1/runs/{done}/trades",
        json={"orders": [{"symbol": "SPY", "side": "buy", "quantity": 10}]},
    )
    assert bought.status_code == 200, bought.text
    while not api.post(f"/api/v1/runs/{done}/step").json()["done"]:
        pass
    assert api.post(f"/api/v1/runs/{done}/publish").status_code == 200
    hand = hand_scenario(service)
    with serve(service) as url, ScenarioClient(url, service.create_key("ref", Tier.PRO)) as c:
        _steps, results = run_agent(c, hand.id)
    assert results["liquidated"] is True
    idle = _start(api, scenario)
    clock.advance(timedelta(days=6))
    assert service.sweep_abandoned() == 1
    events = [s.event for s in service.store.events()]
    kinds = {e.kind for e in events}
    assert {SCENARIO_RUN_STARTED, SCENARIO_RUN_COMPLETED, SCENARIO_RUN_PUBLISHED} <= kinds
    assert {SCENARIO_RUN_ABANDONED, EventKind.POSITION_LIQUIDATED} <= kinds
    assert {EventKind.ACCOUNT_OPENED, EventKind.ORDER_FILLED} <= kinds
    abandoned = [e.payload["run"] for e in events if e.kind == SCENARIO_RUN_ABANDONED]
    assert abandoned == [idle]
    assert check_events(events, "scenario") == []
