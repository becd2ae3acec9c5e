"""A first end-to-end pass through the REST loop."""

from fastapi.testclient import TestClient

from tradeleague.league.scenario import Scenario


def test_loop_runs_to_the_end(api: TestClient, scenario: Scenario) -> None:
    """S-API-1..5: create, read, trade, step to the end, results, publish."""
    run = api.post("/api/v1/runs", json={"scenario": scenario.id})
    assert run.status_code == 201, run.text
    run_id = run.json()["id"]
    market = api.get(f"/api/v1/runs/{run_id}/market").json()
    assert market["index"] == 0
    r = api.post(
        f"/api/v1/runs/{run_id}/trades",
        json={"orders": [{"symbol": "SPY", "side": "buy", "quantity": 10}]},
    )
    assert r.status_code == 200, r.text
    done = False
    n = 0
    while not done:
        s = api.post(f"/api/v1/runs/{run_id}/step")
        assert s.status_code == 200, s.text
        done = s.json()["done"]
        n += 1
    assert n == len(scenario.bars) - 1
    res = api.get(f"/api/v1/runs/{run_id}/results")
    assert res.status_code == 200, res.text
    print(res.json())
