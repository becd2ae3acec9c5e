"""A scenario provisioned from the shared hourly US-equity history, driven over REST.

S-SCN-1, S-API-1, S-API-2, S-API-3, S-API-4, S-FIL-1, S-FIL-2 on real bars.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.market import load_dataset

START = datetime(2025, 6, 2, tzinfo=UTC)
END = datetime(2025, 6, 5, tzinfo=UTC)


@pytest.mark.shared_data
def test_real_history_scenario_runs_to_results(
    shared_data: Path, service: ScenarioService, api: TestClient
) -> None:
    """S-SCN-1, S-API-2, S-API-3, S-API-4, S-FIL-1, S-FIL-2: real bars, next-open fills, metrics.

    Three trading days of AAPL and NVDA hourly bars: a buy of NVDA queued on
    bar 0 fills at bar 1's open plus NVDA's 20 bps (S-FIL-2 high-variance
    tier); the run completes and returns the S-API-4 metrics.
    """
    folder = shared_data / "us_equities_1h"
    scenario = provision_from_market(service, "real", str(folder), ["nvda", "AAPL"], START, END)
    data = load_dataset(str(folder), symbols=("AAPL", "NVDA"), start=START, end=END)
    assert scenario.config.symbols == ("AAPL", "NVDA")
    assert scenario.config.slippage_bps == {"AAPL": 8, "NVDA": 20}
    assert not scenario.config.synthetic
    assert len(scenario.bars) == len(data.series["NVDA"].times) == 21  # 7 bars a day
    run = api.post("/api/v1/runs", json={"scenario": scenario.id}).json()["id"]
    market = api.get(f"/api/v1/runs/{run}/market").json()
    assert market["timestamp"] == "2025-06-02T13:30:00Z"
    queued = api.post(
        f"/api/v1/runs/{run}/trades",
        json={"orders": [{"symbol": "NVDA", "side": "buy", "quantity": "10"}]},
    )
    assert queued.status_code == 200, queued.text  # S-API-2
    assert queued.json()["queued"] == [{"symbol": "NVDA", "side": "buy", "quantity": "10"}]
    first = api.post(f"/api/v1/runs/{run}/step").json()
    next_open = Decimal(int(data.series["NVDA"].open[1])) / 10**6
    assert [f["symbol"] for f in first["fills"]] == ["NVDA"]
    price = Decimal(first["fills"][0]["price"])
    assert abs(price - next_open * Decimal("1.002")) <= Decimal("0.000001")  # rounded to micros
    steps = 1
    while not api.post(f"/api/v1/runs/{run}/step").json()["done"]:
        steps += 1
    assert steps + 1 == len(scenario.bars) - 1
    results = api.get(f"/api/v1/runs/{run}/results").json()  # S-API-4
    assert set(results) >= {"return", "sharpe", "sortino", "max_drawdown", "volatility"}
    final = Decimal(results["final_equity"])
    last_close = Decimal(int(data.series["NVDA"].close[-1])) / 10**6
    cost = 10 * price
    assert final == Decimal(100_000) - cost + 10 * last_close
    assert results["return"] == pytest.approx(float(final / 100_000 - 1))
    assert results["max_drawdown"] >= 0
