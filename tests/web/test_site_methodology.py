"""Methodology pages come from the presets the site runs with: change one, its page changes."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.api import ScenarioService
from tradeleague.api.site import create_site
from tradeleague.calls import Outcome
from tradeleague.clock import WallClock
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.scenario import ServicePreset
from tradeleague.formats.weights import WeightsPreset
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.replay import replay_direction
from tradeleague.market import synthetic_dataset
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
    """C-12: each format's methodology page shows the preset the site was built with."""

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


class _Up:
    name, kind = "up", "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        text = '{"direction": "up", "rationale": "Up."}'
        return AgentReply(outcome=Outcome.ANSWERED, text=text, latency_ms=1_500)


async def test_c3_the_direction_methodology_page_shows_the_changelog(tmp_path: Path) -> None:
    """C-3: the changes that affect comparability are on the methodology page, dated."""
    store = open_store(f"sqlite:///{tmp_path / 'log.db'}")
    with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
        assert "No season has run yet" in client.get("/methodology/direction").text
    preset = DirectionPreset()
    candles = synthetic_dataset(
        1, 400, seed=7, bar_size=timedelta(minutes=1), calendar="24/7", symbols=[preset.symbol]
    )
    last = candles[preset.symbol].last
    roster = [
        Contestant(entrant=Entrant(name="up", provider="p", tier="-", model="up"), agent=_Up())
    ]
    await replay_direction(store, candles, roster, start=last - timedelta(minutes=20), end=last)
    with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
        html = client.get("/methodology/direction").text
    store.close()
    assert "<h2>Changelog</h2>" in html
    assert "Season S1 opened" in html
    assert "Roster: 1 models (up)." in html
