"""Methodology pages come from the presets the site runs with: change one, its page changes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.api import ScenarioService
from tradeleague.api.site import create_site
from tradeleague.clock import WallClock
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.scenario import ServicePreset
from tradeleague.formats.weights import WeightsPreset
from tradeleague.store import open_store


def _setting(html: str, name: str) -> str:
    found = re.search(
        rf'<tr data-setting="{name}"><td>{name}</td><td class="value">([^<]*)</td>', html
    )
    assert found is not None, name
    return found.group(1)


@pytest.mark.parametrize(
    ("page", "field", "default", "changed"),
    [("weights", "min_decisions", "3", "4"), ("direction", "sparkline", "20", "7"),
     ("scenario", "max_queued", "200", "17")],
)  # fmt: skip
def test_changing_a_preset_changes_its_methodology_page(
    tmp_path: Path, page: str, field: str, default: str, changed: str
) -> None:
    """C-10: each format's methodology page shows the preset the site was built with."""

    def served(
        weights: WeightsPreset | None = None,
        direction: DirectionPreset | None = None,
        service: ServicePreset | None = None,
    ) -> str:
        store = open_store(f"sqlite:///{tmp_path / 'changed.db'}")
        site = create_site(
            ScenarioService(store, WallClock(), preset=service),
            weights_preset=weights,
            direction_preset=direction,
        )
        with TestClient(site) as client:
            response = client.get(f"/methodology/{page}")
        store.close()
        assert response.status_code == 200
        return response.text

    assert _setting(served(), field) == default
    value = int(changed)
    if page == "weights":
        html = served(weights=WeightsPreset(min_decisions=value))
    elif page == "direction":
        html = served(direction=DirectionPreset(sparkline=value))
    else:
        html = served(service=ServicePreset(max_queued=value))
    assert _setting(html, field) == changed
