"""`tradeleague serve` serves every format from one store, each root carrying C-1."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tradeleague import DISCLAIMER
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site


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


_RULE_ID = re.compile(r"\b(?:[WDST]-[A-Z]{2,5}(?:-\d+)?|C-\d+|ST-\d+)\b")


def test_the_api_document_names_no_rule_ids(service: ScenarioService) -> None:
    """The OpenAPI document (and so /docs) is for users: rule ids stay in code and tests."""
    with TestClient(create_site(service)) as client:
        document = client.get("/openapi.json").text
    found = {document[max(0, m.start() - 60) : m.end()] for m in _RULE_ID.finditer(document)}
    assert sorted(found) == []
