"""C-12: each format publishes what its scoring does not account for, where boards are read."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tradeleague import DISCLAIMER
from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.disclosure import LIMITS
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store


def test_every_format_discloses_luck_and_costs() -> None:
    """C-12: luck is named for every format; costs or fills are named where they apply."""
    assert set(LIMITS) == {"weights", "direction", "scenario", "thesis"}
    for name, items in LIMITS.items():
        text = " ".join(items).lower()
        assert "luck" in text or "coin flip" in text, name
        assert len(items) >= 5, name


def test_limits_are_served_by_the_api_and_printed_by_the_cli(tmp_path: Path) -> None:
    """C-12 / C-1: `/api/v1/limits` and `tradeleague limits` carry every item and the disclaimer."""
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    try:
        with TestClient(create_site(service)) as client:
            body = client.get("/api/v1/limits").json()
            assert client.get("/api/v1").json()["limits"] == "/api/v1/limits"
    finally:
        service.store.close()
    assert body["disclaimer"] == DISCLAIMER
    assert body["limits"] == {k: list(v) for k, v in LIMITS.items()}
    result = CliRunner().invoke(app, ["limits", "direction"], terminal_width=400)
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert all(" ".join(item.split()) in flat for item in LIMITS["direction"])
    assert LIMITS["weights"][0] not in flat
    bad = CliRunner().invoke(app, ["limits", "nosuchformat"])
    assert bad.exit_code != 0
