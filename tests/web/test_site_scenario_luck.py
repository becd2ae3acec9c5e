"""The scenario leaderboard's ST-1/ST-2 columns, named as on the weights board, from the record."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from fastapi.testclient import TestClient

from tradeleague.clock import WallClock
from tradeleague.formats.scenario.luck import RunRecord, scenario_luck
from tradeleague.formats.scenario.methodology import SCENARIO_NOTES
from tradeleague.formats.scenario.null import CLOUD_AGENTS, EXPOSURE_BPS, FLIPS, scenario_null
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.reads import leaderboard_payload, run_payload
from tradeleague.site import create_site
from tradeleague.stats import percent
from tradeleague.store import open_store
from web.cloud_tables import bin_cells, cloud_tables  # type: ignore[import-not-found]
from web.site_fill import fill_scenario  # type: ignore[import-not-found]


def test_board_rows_carry_trades_and_verdicts_and_the_luckiest_line(tmp_path: Path) -> None:
    """ST-1, ST-2: steps, trades, vs_cash, vs_buy_and_hold per row; the null's line and cloud."""
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    scenario = fill_scenario(service)
    board = leaderboard_payload(service, scenario, "return")
    assert sorted(e["trades"] for e in board["entries"]) == [0, 1]
    for entry in board["entries"]:
        run = run_payload(service, entry["run_id"])
        assert entry["trades"] == run["trades"] == len(run["fills"])
        assert len(run["equity"]) == entry["steps"] + 1
        assert run["equity"][-1]["equity"] == entry["final_equity"]
        for side in ("vs_cash", "vs_buy_and_hold"):
            assert entry[side]["steps"] == entry["steps"]
            assert entry[side]["verdict"] in ("distinguishable", "not distinguishable")
        # beta and alpha against SPY: the run's page has the same fit as its row, and its rounds
        assert entry["unranked_reason"] is None  # every run stepped
        assert run["alpha"] == entry["alpha"]
        assert run["benchmark"] == "SPY"
        assert entry["alpha"] is not None
        assert len(run["scatter"]) == entry["alpha"]["steps"] == entry["steps"] - 1
    luck = board["significance"]["luckiest_of_n"]
    found = service.scenario(scenario)
    null = scenario_null(scenario, found.bars, found.config, 2)
    assert null is not None
    assert luck["agents"] == 2
    assert luck["rounds"] == board["entries"][0]["steps"] == len(found.bars) - 1
    assert luck["expected_best"] == str(null.expected_best)  # ST-2: the null's best of N
    assert board["significance"]["benchmark"] == "SPY"
    cloud = board["baseline_cloud"]
    assert cloud["agents"] == CLOUD_AGENTS
    assert sorted(m["agent"] for m in cloud["marks"]) == sorted(
        e["run_id"] for e in board["entries"]
    )
    for mark, entry in zip(cloud["marks"], board["entries"], strict=True):
        final = Fraction(Decimal(entry["final_equity"])) * 10**6  # decimal dollars to micros
        assert mark["season_return"] == str(percent(final / int(found.config.cash) - 1))
    again = leaderboard_payload(service, scenario, "return")
    assert again == board  # seeded by the scenario: the same board every read
    service.store.close()


def test_a_run_recorded_without_its_equity_path_reads_too_few_entries(tmp_path: Path) -> None:
    """Old stores stay readable: no path in the record is no verdict, never a guess."""
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    found = service.scenario(fill_scenario(service))
    old = RunRecord(run_id="old", equity=(), trades=3)
    luck = scenario_luck(found.id, [old], found.bars, found.config)
    assert luck.rows["old"].vs_cash.to_payload() == {
        "verdict": "too few entries",
        "outcome": "too_few",
        "p_value": None,
        "steps": 0,
    }
    line = luck.to_payload()["luckiest_of_n"]  # the null rests on the bars, not the record
    assert line["agents"] == 1
    assert line["expected_best"] is not None
    service.store.close()


def test_the_board_page_draws_the_cloud_and_the_line_as_the_api_serves(tmp_path: Path) -> None:
    """ST-2: the scenario page's line, SVG, bins and marks hold the leaderboard JSON's numbers."""
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    scenario = fill_scenario(service)
    with TestClient(create_site(service)) as client:
        board = client.get("/api/v1/leaderboard", params={"scenario": scenario}).json()
        page = client.get(f"/scenarios/{scenario}").text
    cloud, line = board["baseline_cloud"], board["significance"]["luckiest_of_n"]
    figure = re.search(r'<figure class="cloud" data-cloud="scenario">(.*?)</figure>', page, re.S)
    assert figure is not None
    assert figure.group(1).count('class="chart-bar"') == len(cloud["bins"])
    assert figure.group(1).count('class="chart-mark"') == len(board["entries"]) == 2
    cells, marks = cloud_tables(page, "scenario")
    assert cells == bin_cells(cloud)
    assert marks == [(m["agent"], m["season_return"], m["below"]) for m in cloud["marks"]]
    luck = re.search(r'<p class="luck" data-field="luckiest_of_n">(.*?)</p>', page, re.S)
    assert luck is not None
    assert f'<span data-field="expected_best">{line["expected_best"]}</span>%' in luck.group(1)
    assert f"over its {line['rounds']} steps, seed {line['seed']}" in luck.group(1)
    assert f"averaged over {line['seasons']} simulated boards of 2" in luck.group(1)
    service.store.close()


def test_the_methodology_page_states_the_no_skill_agent(tmp_path: Path) -> None:
    """ST-2: the scenario methodology says who the luckiest-of-N agents are, with no rule ids."""
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    with TestClient(create_site(service)) as client:
        page = client.get("/methodology/scenario").text
    notes = re.search(r'<ul class="notes">(.*?)</ul>', page, re.S)
    assert notes is not None
    text = html.unescape(notes.group(1))
    for note in SCENARIO_NOTES:
        assert note in text
    assert f"about {FLIPS} flips a symbol" in text
    assert f"{EXPOSURE_BPS / 100:g}% of its equity" in text
    assert re.search(r"\b[A-Z]{1,5}-[A-Z0-9-]*\d\b", text) is None
    service.store.close()
