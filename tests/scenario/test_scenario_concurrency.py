"""One step at a time per run, across servers, on PostgreSQL (S-SVC-2)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from conftest import make_service, serve, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.clock import ReplayClock
from tradeleague.store import verify


def test_concurrent_steps_are_serialised_on_postgres(pg_url: str, clock: ReplayClock) -> None:
    """S-SVC-2: 24 concurrent steps through two servers (own pools) each advance exactly one bar."""
    first, second = make_service(pg_url, clock), make_service(pg_url, clock)
    scenario = synthetic_scenario(first, bars=40)
    key = first.create_key("racer", Tier.PRO)
    headers = {"X-API-Key": key}
    with serve(first) as url_a, serve(second) as url_b:
        run = httpx.post(f"{url_a}/api/v1/runs", json={"scenario": scenario.id}, headers=headers)
        run_id = run.json()["id"]
        httpx.post(
            f"{url_a}/api/v1/runs/{run_id}/trades",
            headers=headers,
            json={"orders": [{"symbol": "SPY", "side": "buy", "quantity": "7"}]},
        )

        def hit(i: int) -> dict[str, object]:
            url = url_a if i % 2 else url_b
            r = httpx.post(f"{url}/api/v1/runs/{run_id}/step", headers=headers, timeout=30)
            assert r.status_code == 200, r.text
            body: dict[str, object] = r.json()
            return body

        with ThreadPoolExecutor(12) as pool:
            steps = list(pool.map(hit, range(24)))
        market = httpx.get(f"{url_b}/api/v1/runs/{run_id}/market", headers=headers).json()
    indexes = sorted(int(str(s["index"])) for s in steps)
    assert indexes == list(range(1, 25))  # no step lost, none applied twice
    assert market["index"] == 24
    assert sum(len(s["fills"]) for s in steps if isinstance(s["fills"], list)) == 1
    report = verify(first.store)
    assert not report.mismatches
    first.store.close()
    second.store.close()
