"""REST ergonomics (issue 11): scenario by name, a run by id, my runs."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tradeleague.accounts import Tier
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.routes import create_app


def test_post_runs_takes_a_scenario_name_for_its_latest_version(
    api: TestClient, scenario: Scenario
) -> None:
    """A scenario's name starts a run on its latest version; an unknown one is a clear 404."""
    made = api.post("/api/v1/runs", json={"scenario": scenario.config.name})
    assert made.status_code == 201, made.text
    assert made.json()["scenario_id"] == scenario.id
    missing = api.post("/api/v1/runs", json={"scenario": "no-such-scenario"})
    assert missing.status_code == 404
    assert "id or name 'no-such-scenario'" in missing.text


def test_get_a_run_and_my_runs(
    api: TestClient, scenario: Scenario, service: ScenarioService
) -> None:
    """GET /runs/{id} shows status, bar and queued orders; GET /runs?mine lists only mine."""
    run_id = api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
    order = {"symbol": scenario.config.symbols[0], "side": "buy", "quantity": "1.5"}
    assert api.post(f"/api/v1/runs/{run_id}/trades", json={"orders": [order]}).status_code == 200
    one = api.get(f"/api/v1/runs/{run_id}")
    assert one.status_code == 200, one.text
    body = one.json()
    assert body["status"] == "active"
    assert body["index"] == 0
    assert body["scenario_name"] == scenario.config.name
    assert body["queued"] == [order]
    mine = api.get("/api/v1/runs", params={"mine": "true"})
    assert [r["id"] for r in mine.json()["runs"]] == [run_id]

    other = service.create_key("someone-else", Tier.PRO)
    with TestClient(create_app(service), headers={"X-API-Key": other}) as stranger:
        assert stranger.get("/api/v1/runs").json()["runs"] == []
        assert stranger.get(f"/api/v1/runs/{run_id}").status_code == 404


def test_delete_cancels_a_queued_order_only(api: TestClient, scenario: Scenario) -> None:
    """DELETE /runs/{id}/orders/{n} removes the n-th queued order; a filled one is gone."""
    run_id = api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
    symbol = scenario.config.symbols[0]
    orders = [
        {"symbol": symbol, "side": "buy", "quantity": "1"},
        {"symbol": symbol, "side": "buy", "quantity": "2"},
    ]
    api.post(f"/api/v1/runs/{run_id}/trades", json={"orders": orders})
    gone = api.delete(f"/api/v1/runs/{run_id}/orders/0")
    assert gone.status_code == 200, gone.text
    assert gone.json()["cancelled"] == orders[0]
    assert api.get(f"/api/v1/runs/{run_id}").json()["queued"] == [orders[1]]
    stepped = api.post(f"/api/v1/runs/{run_id}/step").json()
    assert [f["quantity"] for f in stepped["fills"]] == ["2"]
    late = api.delete(f"/api/v1/runs/{run_id}/orders/0")
    assert late.status_code == 404
    assert "there is no queued order 0" in late.text


def test_every_link_in_the_index_answers_200(service: ScenarioService) -> None:
    """The API root links only what a plain GET can open; templates are apart (issue 11)."""
    from tradeleague.site import create_site

    def links(value: object) -> list[str]:
        if isinstance(value, str):
            return [value] if value.startswith("/") else []
        if isinstance(value, dict):
            return [x for k, v in value.items() if k != "templates" for x in links(v)]
        return []

    with TestClient(create_site(service)) as client:
        found = links(client.get("/api/v1").json())
        assert "/api/v1/limits" in found
        assert {path: client.get(path).status_code for path in found} == dict.fromkeys(found, 200)


def test_a_body_that_is_not_json_is_told_to_send_json(api: TestClient, scenario: Scenario) -> None:
    """A form body is a 415 that says to send JSON; a body with no type, a 422 that says so."""
    form = api.post(
        "/api/v1/runs",
        content=f"scenario={scenario.id}",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 415, form.text
    error = form.json()["error"]
    assert error["code"] == "unsupported_media_type"
    assert "application/x-www-form-urlencoded" in error["message"]
    assert "Content-Type: application/json" in error["message"]
    bare = api.post("/api/v1/runs", content=b"")
    assert bare.status_code == 422, bare.text
    assert "Content-Type: application/json" in bare.json()["error"]["message"]
    fine = api.post("/api/v1/runs", json={"scenario": scenario.id})
    assert fine.status_code == 201
