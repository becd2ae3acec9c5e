"""Every public read route answers what ``/openapi.json`` documents (issue 29 item 1).

A store filled with every format (a weights season, direction rounds, a thesis
season, published scenario runs) is served whole; each public GET route of the
document is called and its answer validated against the schema the document
gives for it, so a field a route adds without documenting it fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.documented import strays
from web.site_fill import (  # type: ignore[import-not-found]
    SEASON,
    SLASHED,
    STREAM,
    THESIS_SEASON,
    THESIS_SLASHED,
    WEIGHTS_SLASHED,
    fill_all,
)


def _private(path: str) -> bool:
    """Routes that need a key or a session: the scenario and account tests call them."""
    runs = path.startswith("/api/v1/runs") and not path.endswith("/public")
    return runs or path.startswith("/api/v1/account") or path in _KEYED


_KEYED = ("/api/v1/scenarios", "/api/v1/limits")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('documented') / 'site.db'}"
    service = ScenarioService(open_store(url), ReplayClock(datetime(2026, 3, 10, tzinfo=UTC)))
    scenario = fill_all(service)
    with TestClient(create_site(service, direction_stream=STREAM)) as client:
        yield client, scenario
    service.store.close()


def _filled(client: TestClient, scenario: str) -> dict[str, list[str]]:
    """Each public GET path of the document, with the real paths that exercise it."""
    rounds = client.get("/api/v1/direction/rounds").json()["rounds"]
    run = client.get("/api/v1/leaderboard", params={"scenario": scenario}).json()["entries"][0]
    return {
        "/api/v1": ["/api/v1"],
        "/api/v1/weights": ["/api/v1/weights"],
        "/api/v1/weights/changelog": ["/api/v1/weights/changelog"],
        "/api/v1/weights/seasons/{season_id}": [f"/api/v1/weights/seasons/{SEASON}"],
        "/api/v1/weights/seasons/{season_id}/tables/{division}": [
            f"/api/v1/weights/seasons/{SEASON}/tables/open",
            f"/api/v1/weights/seasons/{SEASON}/tables/pro",
        ],
        "/api/v1/weights/seasons/{season_id}/agents/{agent}": [
            f"/api/v1/weights/seasons/{SEASON}/agents/cash",
            f"/api/v1/weights/seasons/{SEASON}/agents/{quote(WEIGHTS_SLASHED, safe='')}",
        ],
        "/api/v1/weights/seasons/{season_id}/market": [f"/api/v1/weights/seasons/{SEASON}/market"],
        "/api/v1/weights/seasons/{season_id}/universe": [
            f"/api/v1/weights/seasons/{SEASON}/universe"
        ],
        "/api/v1/weights/universe": ["/api/v1/weights/universe"],
        "/api/v1/direction": ["/api/v1/direction"],
        "/api/v1/direction/rounds/current": ["/api/v1/direction/rounds/current"],
        "/api/v1/direction/rounds": ["/api/v1/direction/rounds?limit=2"],
        "/api/v1/direction/rounds/{round_id}": [f"/api/v1/direction/rounds/{rounds[0]['round']}"],
        "/api/v1/direction/models/{name}/log": [
            f"/api/v1/direction/models/{quote(SLASHED, safe='')}/log"
        ],
        "/api/v1/direction/config": ["/api/v1/direction/config"],
        "/api/v1/direction/boards": ["/api/v1/direction/boards"],
        "/api/v1/direction/visitors": ["/api/v1/direction/visitors"],
        "/api/v1/direction/changelog": ["/api/v1/direction/changelog"],
        "/api/v1/thesis": ["/api/v1/thesis"],
        "/api/v1/thesis/changelog": ["/api/v1/thesis/changelog"],
        "/api/v1/thesis/{season}": [f"/api/v1/thesis/{THESIS_SEASON}"],
        "/api/v1/thesis/{season}/agents/{agent}": [
            f"/api/v1/thesis/{THESIS_SEASON}/agents/{quote(THESIS_SLASHED, safe='')}",
            f"/api/v1/thesis/{THESIS_SEASON}/agents/hold",
        ],
        "/api/v1/ratings": ["/api/v1/ratings"],
        "/api/v1/ratings/{key}": [f"/api/v1/ratings/{k}" for k in _RATED],
        "/api/v1/leaderboard": [f"/api/v1/leaderboard?scenario={scenario}"],
        "/api/v1/leaderboard/scenarios": ["/api/v1/leaderboard/scenarios"],
        "/api/v1/scenario/changelog": ["/api/v1/scenario/changelog"],
        "/api/v1/runs/{run_id}/public": [f"/api/v1/runs/{run['run_id']}/public"],
    }


_RATED = ("weights", "direction", "scenario", "thesis")


def test_every_public_read_answers_its_documented_schema(site: tuple[TestClient, str]) -> None:
    """Issue 29 item 1: each public GET answer of a filled site validates against its schema."""
    client, scenario = site
    doc = client.get("/openapi.json").json()
    filled = _filled(client, scenario)
    public = {path for path, item in doc["paths"].items() if "get" in item and not _private(path)}
    assert public <= set(filled), sorted(public - set(filled))
    wrong: list[str] = []
    for template in sorted(public):
        for path in filled[template]:
            got = client.get(path)
            assert got.status_code == 200, (path, got.text[:300])
            wrong += [f"{path}: {w}" for w in strays(doc, "get", template, 200, got.json())]
    assert not wrong, "\n".join(wrong)
