"""One naming rule (issue 29 item 5): a scenario by id or unique name, everywhere.

Rules: S-API-5 (a run is created in a scenario; the leaderboard is a
scenario's), S-SCN-2 (a name stands for its latest version).
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from conftest import synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.league.scenario import ScenarioService


def test_the_leaderboard_takes_a_name_as_create_run_does(
    api: TestClient, service: ScenarioService
) -> None:
    """S-API-5: ``leaderboard?scenario=wk`` is the board of wk's latest version."""
    synthetic_scenario(service, name="wk", seed=1)
    latest = synthetic_scenario(service, name="wk", seed=2)
    run = api.post("/api/v1/runs", json={"scenario": "wk"}).json()
    assert run["scenario_id"] == latest.id
    by_name = api.get("/api/v1/leaderboard", params={"scenario": "wk"})
    by_id = api.get("/api/v1/leaderboard", params={"scenario": latest.id})
    assert by_name.status_code == 200, by_name.text
    assert by_name.json() == by_id.json()
    assert by_name.json()["scenario"]["id"] == latest.id
    page = api.get("/api/v1/leaderboard", params={"scenario": "wk.v2-draft"})
    assert page.json()["error"]["code"] == "scenario_not_found"
