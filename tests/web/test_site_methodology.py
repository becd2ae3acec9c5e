"""Methodology pages come from the presets the site runs with: change one, its page changes."""

from __future__ import annotations

import html as html_module
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock, WallClock
from tradeleague.disclosure import BOARD_CHANGES
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.scenario import ServicePreset
from tradeleague.formats.weights import Division, WeightsPreset
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.replay import replay_direction
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights import ops
from tradeleague.market import synthetic_dataset
from tradeleague.money import usd
from tradeleague.site import create_site
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


def test_c3_the_weights_methodology_page_shows_the_changelog(tmp_path: Path) -> None:
    """C-3: seasons opening (cash, versions, universe), agents joining, dated; only changes."""
    store = open_store(f"sqlite:///{tmp_path / 'weights-log.db'}")
    with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
        assert "No season has run yet" in client.get("/methodology/weights").text
    clock = ReplayClock(datetime(2026, 10, 5, 9, tzinfo=UTC))
    first = ops.create_season(
        store, clock, start=datetime(2026, 10, 5, tzinfo=UTC), symbols=["SPY", "QQQ"],
        decimals={"SPY": 8, "QQQ": 8}, source="fixture", season_id="autumn",
    )  # fmt: skip
    clock.advance(timedelta(days=1))
    ops.add_agent(
        store, clock, ops.load_season(store, first), name="<b>steady</b>", owner="0xa",
        division=Division.OPEN, spec="local:house", prompt="Hold.",
    )  # fmt: skip
    clock.set(datetime(2026, 11, 2, 9, tzinfo=UTC))
    ops.create_season(
        store, clock, start=datetime(2026, 11, 2, tzinfo=UTC), symbols=["SPY", "QQQ"],
        decimals={"SPY": 8, "QQQ": 8}, source="fixture", season_id="winter",
        preset=WeightsPreset(prompt_version="weights-prompt-v9", start_cash=usd(20_000)),
    )  # fmt: skip
    with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
        served = client.get("/api/v1/weights/changelog").json()["changes"]
        html = client.get("/methodology/weights").text
    store.close()
    preset = WeightsPreset()
    assert [(c["date"], c["change"]) for c in served] == [
        ("2026-10-05", "Season autumn opened: accounts start at 10000.000000 USD."),
        ("2026-10-05", f"Scoring version {preset.scoring_version}."),
        ("2026-10-05", f"Prompt version {preset.prompt_version}."),
        ("2026-10-05", "Universe: 2 symbols (QQQ, SPY)."),
        ("2026-10-06", "Roster: &lt;b&gt;steady&lt;/b&gt; joined the open division."),
        ("2026-11-02", "Season winter opened: accounts start at 20000.000000 USD."),
        ("2026-11-02", "Prompt version weights-prompt-v9."),
    ]
    assert "<h2>Changelog</h2>" in html
    assert '<a href="/api/v1/weights/changelog">' in html
    # shown as the text it is, escaped once (the read model made it safe for JSON)
    assert "<li><time>2026-10-06</time> Roster: &lt;b&gt;steady&lt;/b&gt; joined" in html
    assert "Prompt version weights-prompt-v9." in html


def test_c3_a_version_changed_between_rounds_is_in_the_weights_changelog() -> None:
    """C-3: a season whose rounds change prompt version mid-way lists it, from that round."""
    from tradeleague.events import Event, EventKind
    from tradeleague.league.weights.changelog import changelog_entries

    at = datetime(2026, 10, 5, 14, tzinfo=UTC)
    opened = {
        "season": "s", "start_cash": "10000000000", "symbols": ["SPY"],
        "scoring_version": "sc1", "prompt_version": "p1",
    }  # fmt: skip

    def round_of(hour: int, prompt: str) -> Event:
        payload = {
            "round": f"2026-10-05T{hour}:00Z",
            "scoring_version": "sc1",
            "prompt_version": prompt,
        }
        return Event("weights/s", EventKind.ROUND_STARTED, payload, at.replace(hour=hour))

    events = [
        Event("weights/s", EventKind.SEASON_STARTED, opened, at),
        round_of(14, "p1"),
        round_of(15, "p2"),
        round_of(16, "p2"),
    ]
    changes = [c["change"] for c in changelog_entries([events])]
    assert changes[1:] == [
        "Scoring version sc1.",
        "Prompt version p1.",
        "Universe: 1 symbols (SPY).",
        "Prompt version p2 from the round of 2026-10-05T15:00Z.",
    ]


def test_c3_s_scn_2_the_scenario_methodology_page_shows_the_changelog(tmp_path: Path) -> None:
    """C-3, S-SCN-2: each scenario version is a dated change; a later one says what moved."""
    from tradeleague.league.scenario.provision import provision_from_market

    store = open_store(f"sqlite:///{tmp_path / 'scenario-log.db'}")
    clock = ReplayClock(datetime(2026, 9, 1, 12, tzinfo=UTC))
    service = ScenarioService(store, clock)
    with TestClient(create_site(service)) as client:
        assert "No scenario is published yet" in client.get("/methodology/scenario").text
    market = synthetic_dataset(2, 40, seed=3, symbols=["AAA", "BBB"])
    first, last = market.bars("AAA")[0].timestamp, market.bars("AAA")[-1].timestamp
    provision_from_market(service, "two", market, ["AAA", "BBB"], first, last)
    clock.set(datetime(2026, 10, 1, 12, tzinfo=UTC))
    provision_from_market(
        service, "two", market, ["AAA", "BBB"], first, last, leverage_cap=2, allow_short=True
    )
    clock.set(datetime(2026, 10, 2, 12, tzinfo=UTC))
    provision_from_market(service, "one", market, ["AAA"], first, last)
    with TestClient(create_site(service)) as client:
        served = client.get("/api/v1/scenario/changelog").json()["changes"]
        html = client.get("/methodology/scenario").text
        assert client.get("/api/v1").json()["formats"]["scenario"]["changelog"] == (
            "/api/v1/scenario/changelog"
        )
    store.close()
    assert [c["date"] for c in served] == ["2026-09-01", "2026-10-01", "2026-10-02"]
    assert served[0]["change"].startswith("Scenario two version 1 published: symbols AAA, BBB;")
    assert "leverage cap 1; shorting not allowed;" in served[0]["change"]
    assert served[1]["change"] == (
        "Scenario two version 2 published: leverage cap 1 -> 2; shorting not allowed -> allowed."
    )
    assert served[2]["change"].startswith("Scenario one version 1 published: symbols AAA;")
    assert "<h2>Changelog</h2>" in html
    assert '<a href="/api/v1/scenario/changelog">' in html
    shown = "<time>2026-10-01</time> Scenario two version 2 published: leverage cap 1 -&gt; 2"
    assert shown in html
    assert "-&amp;gt;" not in html  # escaped once


@pytest.mark.parametrize("page", ["weights", "direction", "thesis", "scenario"])
def test_every_methodology_page_says_how_the_boards_changed_and_why(
    tmp_path: Path, page: str
) -> None:
    """C-3: what the ranking work added to the boards is dated and explained on every page."""
    store = open_store(f"sqlite:///{tmp_path / 'boards.db'}")
    try:
        with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
            html = client.get(f"/methodology/{page}").text
    finally:
        store.close()
    listed = re.search(r'<ul class="changelog" data-changes="boards">(.*?)</ul>', html, re.S)
    assert listed is not None
    items = re.findall(r"<li><time>([\d-]+)</time> (.*?)</li>", listed.group(1), re.S)
    assert len(items) == len(BOARD_CHANGES) >= 5
    for (day, change), (shown_day, shown) in zip(BOARD_CHANGES, items, strict=True):
        assert shown_day == day
        assert "because" in change
        assert html_module.unescape(" ".join(shown.split())) == " ".join(change.split())
