"""`tradeleague serve` serves every format from one store, each root carrying C-1."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tradeleague import DISCLAIMER
from tradeleague.api import ScenarioService
from tradeleague.api.site import create_site


def test_site_root_lists_the_formats_with_the_disclaimer(service: ScenarioService) -> None:
    """C-1: the API root carries the disclaimer and says where each format lives."""
    with TestClient(create_site(service)) as client:
        root = client.get("/api/v1")
        assert root.status_code == 200
        body = root.json()
        assert body["disclaimer"] == DISCLAIMER
        assert set(body["formats"]) == {"scenario", "weights", "direction", "thesis"}
        weights = client.get("/api/v1/weights")
        assert weights.status_code == 200
        assert weights.json()["disclaimer"] == DISCLAIMER
        direction = client.get("/api/v1/direction/config")
        assert direction.status_code in (200, 404)
        assert DISCLAIMER in direction.text
        assert client.get("/api/v1/leaderboard/scenarios").status_code == 200
        paths = client.get("/openapi.json").json()["paths"]
        assert "/api/v1/weights" in paths
        assert any(p.startswith("/api/v1/direction/") for p in paths)
