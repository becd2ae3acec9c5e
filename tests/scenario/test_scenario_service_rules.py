"""Service rules over the REST API: keys, errors, quotas, idempotency, idling, publishing."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from conftest import synthetic_scenario  # type: ignore[import-not-found]
from tradeleague import DISCLAIMER
from tradeleague.accounts import Tier
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.routes import create_app
from tradeleague.league.scenario.tables import scenario_runs
from tradeleague.site import create_site
from tradeleague.store import verify


def _run(api: TestClient, scenario: Scenario) -> str:
    r = api.post("/api/v1/runs", json={"scenario": scenario.id})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _error(r: Any, status: int, code: str) -> dict[str, object]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "disclaimer"}
    assert body["disclaimer"] == DISCLAIMER  # C-1, on errors too
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    return dict(body["error"])


def test_keys_are_required_except_public_reads(
    service: ScenarioService, scenario: Scenario
) -> None:
    """S-SVC-4: X-API-Key on /api/v1/*, except the three public reads."""
    with TestClient(create_app(service)) as anon:
        _error(anon.post("/api/v1/runs", json={"scenario": scenario.id}), 401, "missing_api_key")
        _error(
            anon.get("/api/v1/scenarios", headers={"X-API-Key": "tl_nope"}), 401, "invalid_api_key"
        )
        _error(anon.get("/api/v1/runs/X/market"), 401, "missing_api_key")
        assert anon.get(f"/api/v1/leaderboard?scenario={scenario.id}").status_code == 200
        assert anon.get("/api/v1/leaderboard/scenarios").status_code == 200
        _error(anon.get("/api/v1/runs/UNKNOWN/public"), 404, "run_not_found")


def test_keys_are_stored_hashed(service: ScenarioService) -> None:
    """S-SVC-4: only a SHA-256 of the key is stored; the key itself appears nowhere."""
    key = service.create_key("hashy", Tier.FREE)
    with service.read("t") as conn:
        rows = conn.execute(sa.text("SELECT key_hash, prefix FROM api_keys")).all()
    assert len(rows) == 1
    assert rows[0][0] != key
    assert len(rows[0][0]) == 64
    assert key not in rows[0][0]
    assert len(rows[0][1]) < len(key) // 2


def test_errors_are_json_with_code_and_sentence(api: TestClient, scenario: Scenario) -> None:
    """Every error is {"error": {"code", "message"}}: validation, 404 routes, conflicts."""
    _error(api.post("/api/v1/runs", json={"scenario": "!"}), 422, "invalid_request")
    _error(api.post("/api/v1/runs", json={}), 422, "invalid_request")
    _error(api.get("/nowhere"), 404, "not_found")
    _error(api.delete("/api/v1/runs"), 405, "method_not_allowed")
    _error(api.post("/api/v1/runs", json={"scenario": "NOSUCH"}), 404, "scenario_not_found")
    run = _run(api, scenario)
    _error(api.get(f"/api/v1/runs/{run}/results"), 409, "run_not_complete")
    _error(
        api.post(
            f"/api/v1/runs/{run}/trades",
            json={"orders": [{"symbol": "XYZ", "side": "buy", "quantity": 1}]},
        ),
        422,
        "invalid_order",
    )
    _error(
        api.post(
            f"/api/v1/runs/{run}/trades",
            json={"orders": [{"symbol": "SPY", "side": "buy", "quantity": -1}]},
        ),
        422,
        "invalid_request",
    )
    _error(
        api.post(
            f"/api/v1/runs/{run}/trades",
            json={"orders": [{"symbol": "SPY", "side": "buy", "quantity": "0.0000001"}]},
        ),
        422,
        "invalid_request",
    )


def test_runs_are_private_to_their_key(
    service: ScenarioService, api: TestClient, scenario: Scenario
) -> None:
    """S-API-5: a run is private to its account until published."""
    run = _run(api, scenario)
    other = service.create_key("someone-else", Tier.FREE)
    _error(
        api.get(f"/api/v1/runs/{run}/market", headers={"X-API-Key": other}), 404, "run_not_found"
    )
    _error(api.get(f"/api/v1/runs/{run}/public"), 404, "run_not_found")


def test_free_quota_is_25_a_month_then_402(
    service: ScenarioService, clock: ReplayClock, scenario: Scenario
) -> None:
    """S-SVC-5: free accounts get 25 runs per UTC month, then 402 with a checkout_url."""
    key = service.create_key("free-user", Tier.FREE)
    with TestClient(create_app(service), headers={"X-API-Key": key}) as api:
        for _ in range(25):
            _run(api, scenario)
        err = _error(
            api.post("/api/v1/runs", json={"scenario": scenario.id}), 402, "payment_required"
        )
        assert str(err["checkout_url"]).startswith("https://")
        clock.set(clock.now().replace(month=clock.now().month + 1, day=1, hour=0))
        assert api.post("/api/v1/runs", json={"scenario": scenario.id}).status_code == 201


def test_pro_quota_is_200_a_month_then_429(
    service: ScenarioService, clock: ReplayClock, scenario: Scenario
) -> None:
    """S-SVC-5: pro accounts get 200 runs per UTC month, then 429 with resets_at."""
    key = service.create_key("pro-user", Tier.PRO)
    account = service.authenticate(key)
    for _ in range(200):
        service.create_run(account, scenario.id)
    with TestClient(create_app(service), headers={"X-API-Key": key}) as api:
        err = _error(
            api.post("/api/v1/runs", json={"scenario": scenario.id}), 429, "quota_exceeded"
        )
    assert err["resets_at"] == "2026-04-01T00:00:00Z"


def test_idempotent_step_replays_byte_for_byte(api: TestClient, scenario: Scenario) -> None:
    """S-SVC-1: the same key returns the first response, byte for byte, and steps once."""
    run = _run(api, scenario)
    first = api.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "k-1"})
    again = api.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "k-1"})
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert again.headers["Idempotent-Replayed"] == "true"
    assert api.get(f"/api/v1/runs/{run}/market").json()["index"] == 1
    trade = {
        "orders": [{"symbol": "SPY", "side": "buy", "quantity": "1.5"}],
        "idempotency_key": "t-1",
    }
    a = api.post(f"/api/v1/runs/{run}/trades", json=trade)
    b = api.post(
        f"/api/v1/runs/{run}/trades",
        json={**trade, "orders": [{"symbol": "SPY", "side": "buy", "quantity": 1.5}]},
    )  # same order, other spelling
    assert a.content == b.content
    assert len(a.json()["queued"]) == 1
    _error(
        api.post(f"/api/v1/runs/{run}/trades", json={**trade, "orders": []}),
        422,
        "idempotency_key_reused",
    )


def test_idempotency_in_flight_is_409_and_keys_expire_after_24h(
    service: ScenarioService, clock: ReplayClock, api: TestClient, key: str, scenario: Scenario
) -> None:
    """S-SVC-1: an unanswered claim (an earlier version's) is 409; a key is forgotten after 24 h."""
    from tradeleague.accounts import fingerprint
    from tradeleague.accounts.idempotency import claim

    run = _run(api, scenario)
    account = service.authenticate(key)
    with service.write("claim a key in") as conn:  # as an earlier version left it, unanswered
        digest = fingerprint("POST", f"/runs/{run}/step", {})
        assert claim(conn, service, account, "busy", digest) is None
    _error(
        api.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "busy"}),
        409,
        "idempotency_in_flight",
    )
    first = api.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "day"})
    clock.advance(timedelta(hours=23, minutes=59))
    assert api.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "day"}).content == (
        first.content
    )
    clock.advance(timedelta(minutes=1))
    fresh = api.post(f"/api/v1/runs/{run}/step", json={"idempotency_key": "day"})
    assert fresh.status_code == 200
    assert fresh.json()["index"] == first.json()["index"] + 1


def test_idle_runs_are_abandoned_after_5_days(
    service: ScenarioService, clock: ReplayClock, api: TestClient, scenario: Scenario
) -> None:
    """S-SVC-3: no activity for 5 days marks a run abandoned (lazily, and by the sweeper)."""
    lazy, swept = _run(api, scenario), _run(api, scenario)
    api.post(f"/api/v1/runs/{lazy}/step")
    api.post(f"/api/v1/runs/{swept}/step")
    clock.advance(timedelta(days=4, hours=23))
    api.post(f"/api/v1/runs/{swept}/trades", json={"orders": []})
    clock.advance(timedelta(hours=1))
    _error(api.post(f"/api/v1/runs/{lazy}/step"), 409, "run_abandoned")
    _error(api.get(f"/api/v1/runs/{lazy}/market"), 409, "run_abandoned")
    assert service.sweep_abandoned() == 0  # swept was active 1 hour ago
    clock.advance(timedelta(days=5))
    assert service.sweep_abandoned() == 1
    _error(api.post(f"/api/v1/runs/{swept}/trades", json={"orders": []}), 409, "run_abandoned")
    kinds = [e.event.kind for e in service.store.events(f"scenario-run/{swept}")]
    assert kinds[-1] == "ScenarioRunAbandoned"


def _active_at(service: ScenarioService, run: str) -> object:
    with service.read("t") as conn:
        return conn.execute(
            sa.select(scenario_runs.c.active_at).where(scenario_runs.c.id == run)
        ).scalar_one()


def test_reading_the_market_counts_as_activity(
    service: ScenarioService, clock: ReplayClock, api: TestClient, scenario: Scenario
) -> None:
    """S-SVC-3: a market read is activity; reads within a minute of the last write are not stored.

    An agent that only reads (say while its model thinks) keeps its run alive;
    the recorded activity time is at most `TOUCH_EVERY` behind the last read,
    so abandonment can come at most that much early and never late.
    """
    from tradeleague.league.scenario.runs import TOUCH_EVERY

    run = _run(api, scenario)
    created = _active_at(service, run)
    clock.advance(TOUCH_EVERY - timedelta(seconds=1))
    assert api.get(f"/api/v1/runs/{run}/market").status_code == 200
    assert _active_at(service, run) == created  # too soon: the read writes nothing
    clock.advance(timedelta(days=4, hours=23))
    read_at = clock.now()
    assert api.get(f"/api/v1/runs/{run}/market").status_code == 200
    assert _active_at(service, run) == read_at
    clock.advance(timedelta(days=4, hours=23, minutes=59, seconds=59))
    assert service.sweep_abandoned() == 0
    assert api.get(f"/api/v1/runs/{run}/market").status_code == 200  # alive 9 days after creation
    clock.advance(timedelta(days=5))
    _error(api.get(f"/api/v1/runs/{run}/market"), 409, "run_abandoned")
    _error(api.get(f"/api/v1/runs/{run}/market"), 409, "run_abandoned")
    assert service.sweep_abandoned() == 0  # already marked by the read


def test_publish_and_leaderboard(
    service: ScenarioService, api: TestClient, scenario: Scenario
) -> None:
    """S-API-5, S-SCO-2: published runs are public and ranked by the metric the reader picks."""
    runs = []
    for qty in ("10", "300", "0"):
        run = _run(api, scenario)
        if qty != "0":
            api.post(
                f"/api/v1/runs/{run}/trades",
                json={"orders": [{"symbol": "TSLA", "side": "buy", "quantity": qty}]},
            )
        while not api.post(f"/api/v1/runs/{run}/step").json()["done"]:
            pass
        assert api.post(f"/api/v1/runs/{run}/publish").status_code == 200
        runs.append((run, api.get(f"/api/v1/runs/{run}/results").json()))
    anon = TestClient(create_app(service))
    for metric, reverse in (("return", True), ("max_drawdown", False), ("volatility", False)):
        board = anon.get(f"/api/v1/leaderboard?scenario={scenario.id}&metric={metric}").json()
        values = [e["value"] for e in board["entries"] if e["value"] is not None]
        assert values == sorted(values, reverse=reverse)
        assert [e["rank"] for e in board["entries"]] == [1, 2, 3]
    public = anon.get(f"/api/v1/runs/{runs[0][0]}/public").json()
    assert public["return"] == runs[0][1]["return"]
    listing = anon.get("/api/v1/leaderboard/scenarios").json()
    assert listing["scenarios"][0]["published_runs"] == 3
    _error(
        anon.get(f"/api/v1/leaderboard?scenario={scenario.id}&metric=luck"), 422, "invalid_request"
    )


def test_fills_and_results_are_in_the_verified_log(
    service: ScenarioService, api: TestClient, scenario: Scenario
) -> None:
    """C-4 with S-API-3: fills and results are events; verify rebuilds the portfolio from them."""
    run = _run(api, scenario)
    api.post(
        f"/api/v1/runs/{run}/trades",
        json={"orders": [{"symbol": "AAPL", "side": "buy", "quantity": "3.25"}]},
    )
    while not api.post(f"/api/v1/runs/{run}/step").json()["done"]:
        pass
    kinds = [e.event.kind for e in service.store.events(f"scenario-run/{run}")]
    assert kinds[:2] == ["ScenarioRunStarted", "AccountOpened"]
    assert kinds.count("OrderFilled") == 1
    assert kinds[-1] == "ScenarioRunCompleted"
    service.store.refresh_projections()
    report = verify(service.store)
    assert report.mismatches == () or list(report.mismatches) == []
    state = service.store.projection("portfolio", f"scenario-run/{run}/agent")
    assert isinstance(state, dict)
    assert state["positions"] == {"AAPL": "3250000"}
    results = api.get(f"/api/v1/runs/{run}/results").json()
    completed = [e.event for e in service.store.events(f"scenario-run/{run}")][-1]
    assert json.loads(completed.payload_json)["final_equity"] == str(
        int(Decimal(results["final_equity"]) * 10**6)
    )


def test_bars_are_immutable_and_runs_pinned(service: ScenarioService, api: TestClient) -> None:
    """S-SCN-2: the database refuses changes to bars; a new version leaves old runs pinned."""
    v1 = synthetic_scenario(service, name="pinned", seed=1)
    run = _run(api, v1)
    with pytest.raises(Exception, match="immutable"), service.write("t") as conn:
        conn.execute(sa.text("UPDATE scenario_bars SET open = 1"))
    with pytest.raises(Exception, match="immutable"), service.write("t") as conn:
        conn.execute(sa.text("DELETE FROM scenario_bars"))
    v2 = synthetic_scenario(service, name="pinned", seed=2)
    assert (v2.version, v1.version) == (2, 1)
    assert v2.content_hash != v1.content_hash
    assert synthetic_scenario(service, name="pinned", seed=2).id == v2.id  # same content: reused
    market = api.get(f"/api/v1/runs/{run}/market").json()
    spy = v1.bars.bar("SPY", 0)["close"]
    assert market["bars"]["SPY"]["close"] == str(Decimal(spy) / 10**6)


def test_openapi_is_served_at_docs(api: TestClient, service: ScenarioService) -> None:
    """The OpenAPI document is served, and the site serves its docs page."""
    with TestClient(create_site(service)) as site:
        assert site.get("/docs").status_code == 200
    spec = api.get("/openapi.json").json()
    assert "/api/v1/runs/{run_id}/step" in spec["paths"]
    assert "X-API-Key" in json.dumps(spec["components"]["securitySchemes"])
