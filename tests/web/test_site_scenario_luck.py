"""The scenario leaderboard's ST-1/ST-2 columns, named as on the weights board, from the record."""

from __future__ import annotations

from pathlib import Path

from tradeleague.api import ScenarioService
from tradeleague.api.reads import leaderboard_payload, run_payload
from tradeleague.clock import WallClock
from tradeleague.formats.scenario.luck import RunRecord, scenario_luck
from tradeleague.store import open_store
from web.site_fill import fill_scenario  # type: ignore[import-not-found]


def test_board_rows_carry_trades_and_verdicts_and_the_luckiest_line(tmp_path: Path) -> None:
    """ST-1, ST-2: steps, trades, vs_cash, vs_buy_and_hold per row; luckiest_of_n per board."""
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
    luck = board["significance"]["luckiest_of_n"]
    assert luck["agents"] == 2
    assert luck["entries"] == board["entries"][0]["steps"]
    assert luck["expected_best_return"] is not None
    assert board["significance"]["benchmark"] == "SPY"
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
        "p_value": None,
        "steps": 0,
    }
    assert luck.to_payload()["luckiest_of_n"]["expected_best_return"] is None
    service.store.close()
