"""The service preset: every number of the seed is a default an operator can change.

SPEC preamble: "Every number here is the default of a preset, never a
hard-coded constant"; the defaults reproduce S-SVC-1, S-SVC-3, S-SVC-5 and
S-FIL-2 exactly, and another preset is enforced end to end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from conftest import SYMBOLS, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.formats.scenario import HIGH_VARIANCE, MIN_IDLE_LIMIT
from tradeleague.league.scenario import Scenario, ScenarioService, ServicePreset, SlippageTiers
from tradeleague.league.scenario.routes import create_app
from tradeleague.league.scenario.serving import serve_preset
from tradeleague.store import open_store

OPERATOR = ServicePreset(
    free_quota=2,
    pro_quota=3,
    checkout_url="https://operator.example/upgrade",
    idle_limit=timedelta(days=1),
    idempotency_ttl=timedelta(hours=1),
    max_queued=2,
    slippage=SlippageTiers(index_bps=1, high_variance_bps=50, default_bps=10),
)
"""Another operator's rules: every field differs from the seed's."""


@pytest.fixture
def custom(sqlite_url: str, clock: ReplayClock) -> Iterator[ScenarioService]:
    svc = ScenarioService(open_store(sqlite_url), clock, preset=OPERATOR)
    yield svc
    svc.store.close()


@pytest.fixture
def custom_scenario(custom: ScenarioService) -> Scenario:
    made: Scenario = synthetic_scenario(custom)
    return made


def _client(svc: ScenarioService, tier: Tier, name: str) -> TestClient:
    return TestClient(create_app(svc), headers={"X-API-Key": svc.create_key(name, tier)})


def _code(response: Any) -> tuple[int, str]:
    return response.status_code, str(response.json()["error"]["code"])


def test_default_preset_is_the_seed(service: ScenarioService) -> None:
    """S-SVC-1, S-SVC-3, S-SVC-5, S-FIL-2: the default preset holds exactly the seed's numbers."""
    seed = ServicePreset()
    assert service.preset == seed
    assert seed.idempotency_ttl == timedelta(hours=24)  # S-SVC-1
    assert seed.idle_limit == timedelta(days=5)  # S-SVC-3
    assert (seed.free_quota, seed.pro_quota) == (25, 200)  # S-SVC-5
    assert seed.monthly_runs(Tier.FREE) == 25
    assert seed.monthly_runs(Tier.PRO) == 200
    assert seed.checkout_url.startswith("https://")
    tiers = seed.slippage  # S-FIL-2
    assert (tiers.index_bps, tiers.high_variance_bps, tiers.default_bps) == (3, 20, 8)
    assert tiers.high_variance == HIGH_VARIANCE
    assert serve_preset() == seed  # ``tradeleague serve`` with no options is the seed


def test_preset_is_frozen_keyword_only_and_rejects_unknown_fields() -> None:
    """The preset is a value: no positional fields, no unknown fields, no mutation, no nonsense."""
    with pytest.raises(TypeError):
        ServicePreset(25)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ServicePreset(free_qouta=3)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        OPERATOR.free_quota = 99  # type: ignore[misc]
    for bad in (
        {"free_quota": -1},
        {"pro_quota": -1},
        {"checkout_url": "ftp://x"},
        {"idle_limit": MIN_IDLE_LIMIT - timedelta(seconds=1)},
        {"idempotency_ttl": timedelta(0)},
        {"max_queued": 0},
    ):
        with pytest.raises(ValueError):
            ServicePreset(**bad)
    with pytest.raises(ValueError, match="bps"):
        SlippageTiers(default_bps=10_000)
    with pytest.raises(ValueError, match="free or pro"):
        ServicePreset().monthly_runs("gold")


def test_another_preset_sets_the_quotas(custom: ScenarioService, custom_scenario: Scenario) -> None:
    """S-SVC-5 under another preset: free quota 2 (third run 402 with the operator's
    checkout_url), pro quota 3 (fourth run 429)."""
    body = {"scenario": custom_scenario.id}
    with _client(custom, Tier.FREE, "free-user") as api:
        created = [api.post("/api/v1/runs", json=body) for _ in range(2)]
        assert [r.status_code for r in created] == [201, 201]
        assert created[1].json()["quota"]["limit"] == 2
        third = api.post("/api/v1/runs", json=body)
        assert _code(third) == (402, "payment_required")
        assert third.json()["error"]["checkout_url"] == "https://operator.example/upgrade"
        assert "get 2 runs" in third.json()["error"]["message"]
    with _client(custom, Tier.PRO, "pro-user") as api:
        assert [api.post("/api/v1/runs", json=body).status_code for _ in range(3)] == [201] * 3
        assert _code(api.post("/api/v1/runs", json=body)) == (429, "quota_exceeded")


def test_another_preset_sets_the_idle_limit(
    custom: ScenarioService, clock: ReplayClock, custom_scenario: Scenario
) -> None:
    """S-SVC-3 under another preset: a run idle for 1 day (not 5) is abandoned."""
    with _client(custom, Tier.PRO, "idler") as api:
        lazy, swept, busy = (
            api.post("/api/v1/runs", json={"scenario": custom_scenario.id}).json()["id"]
            for _ in range(3)
        )
        clock.advance(timedelta(hours=23))
        assert api.post(f"/api/v1/runs/{busy}/step").status_code == 200
        assert custom.sweep_abandoned() == 0
        clock.advance(timedelta(hours=1))
        refused = api.post(f"/api/v1/runs/{lazy}/step")
        assert _code(refused) == (409, "run_abandoned")
        assert "no activity for 1 day " in refused.json()["error"]["message"]
        assert custom.sweep_abandoned() == 1  # swept; busy stepped 1 hour ago
        assert _code(api.get(f"/api/v1/runs/{swept}/market")) == (409, "run_abandoned")
        assert api.get(f"/api/v1/runs/{busy}/market").status_code == 200


def test_the_seed_keeps_a_run_idle_for_a_day(
    service: ScenarioService, clock: ReplayClock, scenario: Scenario
) -> None:
    """S-SVC-3: under the seed preset the same day of idleness abandons nothing."""
    with _client(service, Tier.PRO, "patient") as api:
        run = api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
        clock.advance(timedelta(days=1))
        assert service.sweep_abandoned() == 0
        assert api.post(f"/api/v1/runs/{run}/step").status_code == 200


def test_another_preset_sets_the_idempotency_window(
    custom: ScenarioService, clock: ReplayClock, custom_scenario: Scenario
) -> None:
    """S-SVC-1 under another preset: a key replays for 1 hour, then runs again."""
    with _client(custom, Tier.PRO, "retrier") as api:
        run = api.post("/api/v1/runs", json={"scenario": custom_scenario.id}).json()["id"]
        url = f"/api/v1/runs/{run}/step"
        first = api.post(url, json={"idempotency_key": "hour"})
        clock.advance(timedelta(minutes=59))
        again = api.post(url, json={"idempotency_key": "hour"})
        assert again.content == first.content
        assert again.headers["Idempotent-Replayed"] == "true"
        clock.advance(timedelta(minutes=1))
        fresh = api.post(url, json={"idempotency_key": "hour"})
        assert fresh.status_code == 200
        assert "Idempotent-Replayed" not in fresh.headers
        assert fresh.json()["index"] == first.json()["index"] + 1


def test_another_preset_bounds_the_queue(
    custom: ScenarioService, custom_scenario: Scenario
) -> None:
    """S-API-2: at most ``max_queued`` orders wait for one step (2 here, 200 by default)."""
    order = {"symbol": "SPY", "side": "buy", "quantity": "1"}
    with _client(custom, Tier.PRO, "trader") as api:
        run = api.post("/api/v1/runs", json={"scenario": custom_scenario.id}).json()["id"]
        url = f"/api/v1/runs/{run}/trades"
        assert api.post(url, json={"orders": [order, order]}).status_code == 200
        refused = api.post(url, json={"orders": [order]})
        assert _code(refused) == (422, "invalid_order")
        assert "at most 2 orders" in refused.json()["error"]["message"]


def test_another_preset_sets_the_slippage_tiers(
    custom: ScenarioService, custom_scenario: Scenario, scenario: Scenario
) -> None:
    """S-FIL-2, S-SCN-2: new versions take the preset's tiers; the seed's give 3/20/8 bps."""
    assert set(SYMBOLS) == {"AAPL", "SPY", "TSLA"}
    assert custom_scenario.config.slippage_bps == {"AAPL": 10, "SPY": 1, "TSLA": 50}
    assert scenario.config.slippage_bps == {"AAPL": 8, "SPY": 3, "TSLA": 20}


def test_serve_options_build_the_preset(monkeypatch: pytest.MonkeyPatch, sqlite_url: str) -> None:
    """``tradeleague serve --free-quota/--pro-quota/--idle-days/...`` reach the served service."""
    import uvicorn

    served: list[ScenarioService] = []

    def fake_run(application: Any, **_: object) -> None:
        served.append(application.state.service)

    monkeypatch.setattr(uvicorn, "run", fake_run)
    args = ["serve", "--db", sqlite_url, "--free-quota", "3", "--pro-quota", "7"]
    args += ["--idle-days", "0.5", "--idempotency-hours", "2", "--max-queued", "9"]
    args += ["--checkout-url", "https://operator.example/pro"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert served[0].preset == ServicePreset(
        free_quota=3,
        pro_quota=7,
        idle_limit=timedelta(hours=12),
        idempotency_ttl=timedelta(hours=2),
        max_queued=9,
        checkout_url="https://operator.example/pro",
    )
    with pytest.raises(ConfigError, match="idle_limit"):
        serve_preset(idle_days=0.01)


def test_cli_help_names_the_seed_defaults() -> None:
    """The help of serve, scenario create and keys create names units and the seed defaults."""
    runner = CliRunner()
    serve = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).stdout
    seed = ServicePreset()
    for text in ("--free-quota", "seed's, 25", "seed's, 200", "seed's, 5", "seed's, 24", "Example"):
        assert text in serve
    # serve names no format, so its help spells the seed's numbers: they must stay the preset's
    assert f"seed's, {seed.free_quota})" in serve
    assert f"seed's, {seed.pro_quota})" in serve
    assert f"seed's, {seed.idle_limit / timedelta(days=1):g})" in serve
    assert f"seed's, {seed.idempotency_ttl / timedelta(hours=1):g})" in serve
    assert f"seed's, {seed.max_queued})" in serve
    assert f"at least {MIN_IDLE_LIMIT / timedelta(hours=1):g} hour" in serve
    create = runner.invoke(app, ["scenario", "create", "--help"], env={"COLUMNS": "200"}).stdout
    for text in ("basis points", "SYM=BPS", "seed: 3", "seed: 20", "seed: 8", "2025-06-02"):
        assert text in create
    keys = runner.invoke(app, ["keys", "create", "--help"], env={"COLUMNS": "200"}).stdout
    for text in ("25 runs per UTC month", "Example"):
        assert text in keys


def test_scenario_create_takes_the_slippage_tiers(tmp_path: Path, sqlite_url: str) -> None:
    """S-FIL-2: ``scenario create --index-bps/--volatile-bps/--default-bps/--volatile``."""
    import json

    from test_scenario_cli import _market  # type: ignore[import-not-found]

    market = _market(tmp_path / "bars")
    args = ["scenario", "create", "tiers", "--market", str(market), "--symbols", "AAPL,SPY,TSLA"]
    args += ["--start", "2000-01-01", "--end", "2100-01-01", "--db", sqlite_url, "--json"]
    args += ["--index-bps", "2", "--volatile-bps", "40", "--default-bps", "6"]
    args += ["--volatile", "aapl", "--slippage", "SPY=4"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["slippage_bps"] == {"AAPL": 40, "SPY": 4, "TSLA": 6}
