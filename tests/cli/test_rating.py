"""``tradeleague rating`` over a sweep of 3 seeds x 2 seasons (issue 27 item 5; ST-1, ST-2).

The sweep runs in this process (`run_local`): the weights league's baselines
over two real weeks of daily bars, three seeds each. Each model gets a mean, an
interval and a place in the pairs table; the same command gives the same bytes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.league.results import agent_specs, model_of
from tradeleague.store import open_store
from tradeleague.sweep.config import load_sweep
from tradeleague.sweep.merge import merged_report
from tradeleague.sweep.run import run_local

SWEEP = """
seeds = [0, 1, 2]
[weights.seasons.june-a]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-02"
end = "2025-06-07"
[weights.seasons.june-b]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-09"
end = "2025-06-14"
[weights.rosters]
mixed = ["cash=baseline:cash", "ew=baseline:equal-weight", "coin=baseline:coin-flip"]
"""


@pytest.fixture(scope="module")
def sweep_out(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A finished sweep's folder, written as ``tradeleague sweep`` writes it."""
    root = tmp_path_factory.mktemp("rating")
    config = root / "sweep.toml"
    config.write_text(SWEEP.format(data=shared_data), encoding="utf-8")
    out = root / "out"
    plan = load_sweep(config)
    results = run_local(plan.cells, out, lambda *_: None)
    assert all(r["exit_code"] == 0 for r in results), results
    report = merged_report(config, out, plan.cells, results)
    (out / "REPORT.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return out


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["rating", *args])


def test_each_model_gets_a_mean_an_interval_and_the_pairs(sweep_out: Path) -> None:
    """ST-1, ST-2: 2 seasons of 3 seeds: each model rests on 2 seasons and 6 runs."""
    result = _run("--sweep", str(sweep_out), "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    rating = body["formats"]["weights"]
    models = {m["model"]: m for m in rating["models"]}
    assert set(models) == {"cash", "ew", "coin"}
    for m in models.values():
        assert (m["seasons"], m["runs"]) == (2, 6)
        for side in ("vs_cash", "vs_benchmark"):
            figure = m[side]
            assert figure["low"] <= figure["mean"] <= figure["high"]
    assert models["cash"]["vs_cash"] == {"seasons": 2, "mean": 0.0, "low": 0.0, "high": 0.0}
    pairs = {(p["a"], p["b"]) for p in rating["pairs"]}
    assert pairs == {("cash", "coin"), ("cash", "ew"), ("coin", "ew")}
    for p in rating["pairs"]:
        assert p["paired"]
        assert p["shared_seasons"] == 2
        assert p["p_value"] >= 0.5  # two seasons: no exact test reaches 5%
        assert p["verdict"] == "not_distinguishable"


def test_the_same_command_gives_the_same_bytes(sweep_out: Path) -> None:
    """ST-2: the rating is a pure function of the reports and the seed, tables and JSON alike."""
    for args in (("--json",), (), ("--format", "weights", "--seed", "9")):
        first = _run("--sweep", str(sweep_out), *args)
        again = _run("--sweep", str(sweep_out), *args)
        assert first.exit_code == 0, first.output
        assert first.stdout_bytes == again.stdout_bytes
    table = _run("--sweep", str(sweep_out)).output
    assert "rating across seasons" in table
    assert "which models differ" in table
    assert "not distinguishable" in table


def test_agents_are_rated_as_their_model_id(sweep_out: Path, tmp_path: Path) -> None:
    """ST-2: an agent whose spec names a model is rated as that model id, pooled across names."""
    copy = tmp_path / "out"
    shutil.copytree(sweep_out, copy)
    report = json.loads((copy / "REPORT.json").read_text(encoding="utf-8"))
    for cell in report["cells"]:
        cell["agents"]["ew"] = "openai:gpt-4o-mini@openrouter"
        cell["agents"]["coin"] = "openai:gpt-4o-mini@openrouter,tier=MID"
    (copy / "REPORT.json").write_text(json.dumps(report), encoding="utf-8")
    result = _run("--sweep", str(copy), "--json")
    assert result.exit_code == 0, result.output
    models = {m["model"]: m for m in json.loads(result.output)["formats"]["weights"]["models"]}
    assert set(models) == {"cash", "gpt-4o-mini"}
    assert models["gpt-4o-mini"]["runs"] == 12


def test_model_of_reads_the_spec() -> None:
    """The model id of an openai or local spec; for any other spec, or none, the name."""
    assert model_of("a", "openai:gpt-4o-mini@openrouter") == "gpt-4o-mini"
    assert model_of("a", "openai:qwen@llamacpp=http://127.0.0.1:18310/v1") == "qwen"
    assert model_of("a", "local:house") == "house"
    assert model_of("cash", "baseline:cash") == "cash"
    assert model_of("mine", None) == "mine"
    assert model_of("odd", "nonsense") == "odd"


def test_a_folder_without_a_sweep_says_what_to_give(tmp_path: Path) -> None:
    """Errors in one sentence that say the fix."""
    result = _run("--sweep", str(tmp_path))
    assert result.exit_code != 0
    assert "give the --out folder of a finished sweep" in str(result.exception)


def test_an_unknown_format_lists_the_rated_ones(sweep_out: Path) -> None:
    """An unknown name lists the valid ones."""
    result = _run("--sweep", str(sweep_out), "--format", "nope")
    assert result.exit_code != 0
    assert "weights" in str(result.exception)


def test_a_report_outside_the_folder_is_refused(sweep_out: Path, tmp_path: Path) -> None:
    """Everything from outside is hostile: a merged report cannot point outside its folder."""
    report = json.loads((sweep_out / "REPORT.json").read_text(encoding="utf-8"))
    report["cells"][0]["report"] = "../../../etc/passwd"
    (tmp_path / "REPORT.json").write_text(json.dumps(report), encoding="utf-8")
    result = _run("--sweep", str(tmp_path))
    assert result.exit_code != 0
    assert "outside" in str(result.exception)


MIXED = """
seeds = [0]
[direction.seasons.sep]
market = "{data}/crypto_1m"
start = "2025-09-01T06:00:00Z"
end = "2025-09-01T06:20:00Z"
[direction.rosters]
calls = ["up=baseline:up", "coin=baseline:coin-flip"]
[thesis.seasons.march]
crypto = "{data}/crypto_4h"
stocks = "{data}/us_equities_daily"
start = "2025-03-03"
end = "2025-03-08"
[thesis.rosters]
coins = ["cash=baseline:cash", "coin=baseline:coin-flip"]
"""


@pytest.fixture(scope="module")
def mixed_out(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """One arena season and one thesis season, one seed each."""
    root = tmp_path_factory.mktemp("rating-mixed")
    config = root / "sweep.toml"
    config.write_text(MIXED.format(data=shared_data), encoding="utf-8")
    out = root / "out"
    plan = load_sweep(config)
    results = run_local(plan.cells, out, lambda *_: None)
    assert all(r["exit_code"] == 0 for r in results), results
    report = merged_report(config, out, plan.cells, results)
    (out / "REPORT.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return out


def _models(output: str, fmt: str) -> dict[str, float]:
    rating = json.loads(output)["formats"][fmt]
    return {m["model"]: m["vs_cash"]["mean"] for m in rating["models"]}


@pytest.mark.parametrize("where", ["weights/june-a/mixed/seed-0", "weights/june-b/mixed/seed-2"])
def test_a_store_rates_as_its_report(sweep_out: Path, where: str) -> None:
    """ST-2: --db reads a season from the store with the very returns its REPORT.json holds."""
    cell = sweep_out / "cells" / where
    result = _run("--db", f"sqlite:///{cell / 'store.db'}", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads((cell / "REPORT.json").read_text(encoding="utf-8"))
    by_hand = {a["name"]: float(a["season_return"]) / 100 for a in report["agents"]}
    assert _models(result.output, "weights") == pytest.approx(by_hand)


def test_the_arena_and_the_thesis_league_rate_from_a_sweep_and_a_store(mixed_out: Path) -> None:
    """ST-2: each format's seasons, from the sweep's reports and from each cell's store, agree."""
    swept = _run("--sweep", str(mixed_out), "--json")
    assert swept.exit_code == 0, swept.output
    body = json.loads(swept.output)["formats"]
    assert list(body) == ["direction", "thesis"]
    assert body["direction"]["models"][0]["vs_benchmark"] is None  # binary calls: no benchmark
    assert body["thesis"]["models"][0]["vs_benchmark"] is not None
    for fmt, where in (("direction", "sep/calls"), ("thesis", "march/coins")):
        store = mixed_out / "cells" / fmt / where / "seed-0" / "store.db"
        stored = _run("--db", f"sqlite:///{store}", "--json", "--format", fmt)
        assert stored.exit_code == 0, stored.output
        assert _models(stored.output, fmt) == _models(swept.output, fmt)


def test_sweep_and_db_together_are_refused(sweep_out: Path) -> None:
    """One source at a time, said in one sentence."""
    result = _run("--sweep", str(sweep_out), "--db", "sqlite:///x.db")
    assert result.exit_code != 0
    assert "not both" in str(result.exception)


def test_an_empty_store_says_what_to_do(tmp_path: Path) -> None:
    """A store with no season is one sentence that says how to make one."""
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    with open_store(url):  # a migrated store with no event
        pass
    result = _run("--db", url)
    assert result.exit_code != 0
    assert "replay or sweep one first" in str(result.exception)


def test_a_mangled_cell_report_is_one_sentence(sweep_out: Path, tmp_path: Path) -> None:
    """Everything from outside is hostile: a cell report missing its figures is refused plainly."""
    copy = tmp_path / "out"
    shutil.copytree(sweep_out, copy)
    cell = json.loads((copy / "REPORT.json").read_text(encoding="utf-8"))["cells"][0]
    report = json.loads((copy / cell["report"]).read_text(encoding="utf-8"))
    del report["agents"][0]["season_return"]
    (copy / cell["report"]).write_text(json.dumps(report), encoding="utf-8")
    result = _run("--sweep", str(copy))
    assert result.exit_code != 0
    assert "replay the cell again" in str(result.exception)


def test_a_cells_agent_options_are_read_as_the_replay_reads_them() -> None:
    """A bare spec is named as the replay names it; its model id is read from it either way."""
    specs = agent_specs(
        ["--agent", "gpt=openai:gpt-4o-mini@openrouter", "--seed", "1",
         "--agent", "openai:qwen@llamacpp=http://127.0.0.1:18310/v1", "--agent", "bad spec"]
    )  # fmt: skip
    assert specs == {
        "gpt": "gpt=openai:gpt-4o-mini@openrouter",
        "qwen": "openai:qwen@llamacpp=http://127.0.0.1:18310/v1",
    }
    assert [model_of(name, spec) for name, spec in specs.items()] == ["gpt-4o-mini", "qwen"]
