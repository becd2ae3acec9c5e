"""``tradeleague rating --by window``: alpha decay between a sweep's labelled windows (issue 28).

A small sweep runs in this process: four weeks of daily bars (three symbols),
two labelled ``in`` and two ``out``, with two baselines and a scripted agent
whose training cutoff falls between the windows. Each model gets its alpha
per window and the decay (out minus in) with a bootstrap interval; the same
command gives the same bytes. Also: examples/sweeps/decay.toml loads, and the
data gives Look-Ahead-Bench's equal-weight figure for its first window.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.stats.decay import decay
from tradeleague.stats.rating import SeasonResult
from tradeleague.sweep.config import load_sweep, parse_sweep
from tradeleague.sweep.merge import merged_report
from tradeleague.sweep.run import run_local

ROOT = Path(__file__).resolve().parents[2]
ANSWER = {"text": json.dumps({"targets": {"SPY": 40, "QQQ": 60}, "reason": "Tilt to QQQ."})}

SWEEP = """
seeds = [0]

[windows]
in = ["w1", "w2"]
out = ["w3", "w4"]

[weights.seasons.w1]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-02"
end = "2025-06-07"
[weights.seasons.w2]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-09"
end = "2025-06-14"
[weights.seasons.w3]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-23"
end = "2025-06-28"
[weights.seasons.w4]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-30"
end = "2025-07-04"

[weights.rosters]
mixed = [
    "ew=baseline:equal-weight",
    "mom=baseline:momentum",
    "late=scripted:{script},cutoff=2025-06-15",
]
"""


@pytest.fixture(scope="module")
def sweep_out(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A finished sweep's folder with two labelled windows, as ``tradeleague sweep`` writes it."""
    root = tmp_path_factory.mktemp("windows")
    script = root / "late.jsonl"
    script.write_text("\n".join(json.dumps(ANSWER) for _ in range(5)) + "\n", encoding="utf-8")
    config = root / "sweep.toml"
    config.write_text(SWEEP.format(data=shared_data, script=script), encoding="utf-8")
    out = root / "out"
    plan = load_sweep(config)
    assert plan.windows == {"in": ("w1", "w2"), "out": ("w3", "w4")}
    results = run_local(plan.cells, out, lambda *_: None)
    assert all(r["exit_code"] == 0 for r in results), results
    report = merged_report(config, out, plan.cells, results, plan.windows)
    (out / "REPORT.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return out


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["rating", *args])


def test_each_model_gets_alpha_per_window_and_the_decay_with_an_interval(
    sweep_out: Path,
) -> None:
    """Two seasons a window: a mean and an interval per window, out minus in with a verdict."""
    result = _run("--sweep", str(sweep_out), "--by", "window", "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    found = body["formats"]["weights"]
    assert found["reference"] == "in"
    assert found["windows"] == {"in": ["w1", "w2"], "out": ["w3", "w4"]}
    models = {m["model"]: m for m in found["models"]}
    assert set(models) == {"ew", "mom", "late"}
    for m in models.values():
        for label in ("in", "out"):
            window = m["windows"][label]
            assert window["seasons"] == 2
            low, high = window["interval"]
            assert low <= window["alpha"] <= high
        (d,) = m["decay"]
        assert (d["window"], d["minus"]) == ("out", "in")
        assert d["difference"] == pytest.approx(
            m["windows"]["out"]["alpha"] - m["windows"]["in"]["alpha"]
        )
        low, high = d["interval"]
        assert low <= d["difference"] <= high
        assert d["verdict"] in {"better", "worse", "not_distinguishable"}
        # the verdict follows the interval: distinguishable only when it excludes zero
        assert (d["verdict"] == "not_distinguishable") == (low <= 0 <= high)


def test_the_decay_is_reproducible_byte_for_byte(sweep_out: Path) -> None:
    """The same sweep and seed give the same bytes; another seed moves only the intervals."""
    args = ("--sweep", str(sweep_out), "--by", "window", "--json", "--resamples", "500")
    first, second = _run(*args), _run(*args)
    assert first.exit_code == 0, first.output
    assert first.stdout_bytes == second.stdout_bytes
    other = json.loads(_run(*args, "--seed", "7").output)["formats"]["weights"]
    again = json.loads(first.output)["formats"]["weights"]
    for a, b in zip(other["models"], again["models"], strict=True):
        assert a["decay"][0]["difference"] == b["decay"][0]["difference"]
    tables = _run("--sweep", str(sweep_out), "--by", "window", "--resamples", "500")
    assert tables.exit_code == 0, tables.output
    assert "out minus in" in tables.output


def test_rating_rows_say_each_models_cutoff_status(sweep_out: Path) -> None:
    """A model before its cutoff in some seasons and after it in others is mixed; rules: none."""
    result = _run("--sweep", str(sweep_out), "--json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    models = {m["model"]: m for m in json.loads(result.output)["formats"]["weights"]["models"]}
    assert models["late"]["cutoff"] == "mixed"
    assert models["ew"]["cutoff"] is None


def test_a_sweep_without_windows_is_one_clear_sentence(tmp_path: Path) -> None:
    """--by window on a sweep that named none says how to name them."""
    (tmp_path / "REPORT.json").write_text('{"cells": []}', encoding="utf-8")
    result = _run("--sweep", str(tmp_path), "--by", "window")
    assert result.exit_code != 0
    assert "[windows]" in str(result.exception)
    bad = _run("--sweep", str(tmp_path), "--by", "month")
    assert bad.exit_code != 0
    assert "the one grouping is window" in str(bad.exception)


def test_decay_separates_a_clear_drop_and_needs_two_seasons() -> None:
    """A model that lost its alpha out of sample: worse; one season a window: too few."""

    def rows(model: str, alphas: dict[str, float]) -> list[SeasonResult]:
        return [
            SeasonResult(season=s, model=model, return_=0.0, cash=0.0, benchmark=0.0, alpha=a)
            for s, a in alphas.items()
        ]

    windows = {"a": "in", "b": "in", "c": "in", "d": "out", "e": "out", "f": "out"}
    drop = rows("drop", {"a": 0.30, "b": 0.32, "c": 0.31, "d": 0.01, "e": 0.0, "f": 0.02})
    lone = rows("lone", {"a": 0.1, "d": 0.2})
    found = {m.model: m for m in decay(drop + lone, windows, ["in", "out"], seed=0, resamples=500)}
    (fell,) = found["drop"].decays
    assert fell.outcome == "worse"
    assert fell.difference == pytest.approx(0.01 - 0.31)
    (few,) = found["lone"].decays
    assert (few.outcome, few.low, few.high) == ("too_few", None, None)


def test_windows_are_checked_when_the_sweep_is_read(tmp_path: Path, shared_data: Path) -> None:
    """A window naming an unknown season, or a season in two windows, is refused."""
    text = SWEEP.format(data=shared_data, script=tmp_path / "s.jsonl")
    (tmp_path / "s.jsonl").write_text(json.dumps(ANSWER) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="which no table holds"):
        parse_sweep(text.replace('out = ["w3", "w4"]', 'out = ["w5"]'), tmp_path / "s.toml")
    with pytest.raises(ConfigError, match="in two windows"):
        parse_sweep(text.replace('out = ["w3", "w4"]', 'out = ["w2"]'), tmp_path / "s.toml")


def test_the_decay_example_loads_with_lookahead_benchs_windows(shared_data: Path) -> None:
    """examples/sweeps/decay.toml: the five stocks; in = Apr-Sep 2021, out = Jul-Dec 2024."""
    sweep = load_sweep(ROOT / "examples" / "sweeps" / "decay.toml")
    assert list(sweep.windows) == ["in", "out"]
    days: dict[str, list[str]] = {}
    for cell in sweep.cells:
        args = list(cell.args)
        label = next(k for k, v in sweep.windows.items() if cell.season in v)
        days.setdefault(label, []).extend(
            [args[args.index("--start") + 1], args[args.index("--end") + 1]]
        )
        symbols = set(args[args.index("--symbols") + 1].split(","))
        assert {"AAPL", "MSFT", "GOOGL", "NVDA", "TSLA"} <= symbols
    assert (min(days["in"]), max(days["in"])) == ("2021-04-01", "2021-10-01")
    assert (min(days["out"]), max(days["out"])) == ("2024-07-01", "2025-01-01")


def test_the_data_gives_the_first_windows_equal_weight_return(shared_data: Path) -> None:
    """Equal weights in the five stocks, first open (1 Apr 2021) to last close (30 Sep): +25.33%."""
    returns = []
    for symbol in ("AAPL", "MSFT", "GOOGL", "NVDA", "TSLA"):
        with (shared_data / "us_equities_daily" / f"{symbol}.csv").open(encoding="utf-8") as f:
            bars = [
                r for r in csv.DictReader(f) if "2021-04-01" <= r["timestamp"][:10] <= "2021-09-30"
            ]
        assert bars[0]["timestamp"][:10] == "2021-04-01"
        assert bars[-1]["timestamp"][:10] == "2021-09-30"
        returns.append(float(bars[-1]["close"]) / float(bars[0]["open"]) - 1)
    assert round(sum(returns) / len(returns) * 100, 2) == 25.33
