"""A published result is derived from events: an edited run row is found and never shown (C-4)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.tables import scenario_runs
from tradeleague.store import verify


def _finish_and_publish(api: TestClient, scenario: Scenario) -> str:
    run_id = str(api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"])
    order = {"orders": [{"symbol": "SPY", "side": "buy", "quantity": 10}]}
    assert api.post(f"/api/v1/runs/{run_id}/trades", json=order).status_code == 200
    while not api.post(f"/api/v1/runs/{run_id}/step").json()["done"]:
        pass
    assert api.post(f"/api/v1/runs/{run_id}/publish").status_code == 200
    return run_id


def test_edited_results_are_found_and_the_public_reads_keep_the_events(
    api: TestClient, scenario: Scenario, service: ScenarioService
) -> None:
    """C-4, S-SCO-2: `scenario_runs.results` forged behind the log: verify fails, boards hold."""
    run_id = _finish_and_publish(api, scenario)
    board = f"/api/v1/leaderboard?scenario={scenario.id}"
    honest_board = api.get(board).json()
    honest_run = api.get(f"/api/v1/runs/{run_id}/public").json()
    assert verify(service.store).ok
    with service.store.engine.begin() as conn:
        text = conn.execute(
            sa.text("SELECT results FROM scenario_runs WHERE id = :i"), {"i": run_id}
        ).scalar_one()
        forged = json.loads(text)
        forged["return"] = "9/1"
        forged["final_equity"] = str(10 * int(forged["final_equity"]))
        conn.execute(
            sa.text("UPDATE scenario_runs SET results = :r WHERE id = :i"),
            {"r": json.dumps(forged), "i": run_id},
        )
    report = verify(service.store)
    assert [(m.check, m.key) for m in report.mismatches] == [("scenario_results", run_id)]
    # the whole board (entries, verdicts, the no-skill line) reads as before the edit
    assert api.get(board).json() == honest_board
    assert api.get(f"/api/v1/runs/{run_id}/public").json() == honest_run


def test_a_run_row_edited_to_look_published_or_complete_is_found(
    api: TestClient, scenario: Scenario, service: ScenarioService
) -> None:
    """C-4: a status or publication the log never recorded is a mismatch."""
    run_id = str(api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"])
    with service.store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE scenario_runs SET status = 'complete', results = '{}', "
                "published_at = created_at WHERE id = :i"
            ),
            {"i": run_id},
        )
    checks = {m.check for m in verify(service.store).mismatches}
    assert checks == {"scenario_results", "scenario_status", "scenario_published"}
    assert run_id not in api.get(f"/api/v1/leaderboard?scenario={scenario.id}").text
    assert api.get(f"/api/v1/runs/{run_id}/public").status_code == 404


@pytest.mark.parametrize(
    ("column", "value", "check"),
    [
        ("account", "bob", "scenario_start"),
        ("scenario_id", "01ZZZZZZZZZZZZZZZZZZZZZZZZ", "scenario_start"),
        ("published_at", datetime(2020, 1, 1, tzinfo=UTC), "scenario_published"),
    ],
)
def test_a_published_runs_owner_scenario_or_publication_time_edited_is_named(
    api: TestClient,
    scenario: Scenario,
    service: ScenarioService,
    column: str,
    value: object,
    check: str,
) -> None:
    """C-4: a run's credit, scenario and publication time are what its events say; verify names
    the row whose column was moved behind the log (issue 24 item 2)."""
    run_id = _finish_and_publish(api, scenario)
    assert verify(service.store).ok
    with service.store.engine.begin() as conn:
        conn.execute(
            sa.update(scenario_runs).where(scenario_runs.c.id == run_id).values({column: value})
        )
    report = verify(service.store)
    assert [(m.check, m.projection, m.key) for m in report.mismatches] == [
        (check, "scenario_runs", run_id)
    ]


def test_a_scenario_bar_edited_with_the_triggers_dropped_is_named(
    api: TestClient, scenario: Scenario, service: ScenarioService
) -> None:
    """C-4: a scenario's bars are the ones its content hash names, even past the triggers."""
    _finish_and_publish(api, scenario)
    assert verify(service.store).ok
    with service.store.engine.begin() as conn:
        conn.execute(sa.text("DROP TRIGGER scenario_bars_no_update"))
        conn.execute(
            sa.text(
                "UPDATE scenario_bars SET close = close + 1 "
                "WHERE scenario_id = :s AND symbol = 'SPY' AND idx = 3"
            ),
            {"s": scenario.id},
        )
    report = verify(service.store)
    assert [(m.check, m.projection, m.key) for m in report.mismatches] == [
        ("scenario_bars", "scenario_bars", scenario.id)
    ]
