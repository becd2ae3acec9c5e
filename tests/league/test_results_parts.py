"""Each format's results part: a season's per-agent returns, cash's and the benchmark's (ST-2)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from tradeleague.errors import ConfigError
from tradeleague.league.results import ReportResults, fraction
from tradeleague.plugin import formats

PINNED = Path(__file__).resolve().parents[1] / "pinned"


def _part(key: str) -> ReportResults:
    part: ReportResults = next(f for f in formats() if f.key == key).part("results")
    return part


def test_every_format_has_results_and_those_swept_read_reports() -> None:
    """Every built-in format can be rated; a format the sweep runs reads its cells' reports."""
    for fmt in formats():
        assert fmt.has("results"), fmt.key
        if fmt.has("sweep"):
            assert isinstance(fmt.part("results"), ReportResults), fmt.key


def test_weights_reads_returns_and_spy_from_its_report() -> None:
    """ST-2: each agent's season return; cash 0; SPY from the first round's price to the last."""
    report = json.loads((PINNED / "weights_open.REPORT.json").read_text(encoding="utf-8"))
    season = _part("weights").season(report)
    assert season.season == report["season"]
    assert season.cash == 0
    assert season.benchmark_name == "SPY"
    first, last = report["rounds"][0]["prices"]["SPY"], report["rounds"][-1]["prices"]["SPY"]
    assert season.benchmark == Decimal(last) / Decimal(first) - 1
    by_name = {a.name: a.return_ for a in season.agents}
    assert by_name == {a["name"]: fraction(a["season_return"]) for a in report["agents"]}
    assert by_name["cash"] == 0


def test_direction_reads_roi_and_has_no_benchmark() -> None:
    """ST-2: the arena's ROI per model against cash; binary calls have no market benchmark."""
    report = json.loads((PINNED / "direction.REPORT.json").read_text(encoding="utf-8"))
    season = _part("direction").season(report)
    assert season.benchmark is None
    assert [(a.name, a.return_) for a in season.agents] == [
        (m["name"], Decimal(m["roi"]) / 100) for m in report["models"]
    ]


def test_thesis_reads_return_spec_and_spy() -> None:
    """ST-2: the thesis return and spec per agent; SPY over the cycles that priced it."""
    report = {
        "format": "thesis",
        "season": "T1",
        "cycles": [{"prices": {"SPY": "500"}}, {"prices": {}}, {"prices": {"SPY": "510"}}],
        "agents": [
            {"name": "m", "spec": "openai:gpt-4o-mini", "metrics": {"return": "-1.25"}},
            {"name": "late", "spec": "baseline:cash", "metrics": {"return": None}},
        ],
    }
    season = _part("thesis").season(report)
    assert season.benchmark == Decimal("0.02")
    assert [(a.name, a.spec, a.return_) for a in season.agents] == [
        ("m", "openai:gpt-4o-mini", Decimal("-0.0125"))
    ]


@pytest.mark.parametrize("key", ["weights", "direction", "thesis"])
def test_another_formats_report_is_refused(key: str) -> None:
    """Everything from outside is hostile: a report of another shape is one sentence."""
    with pytest.raises(ConfigError, match=r"REPORT\.json"):
        _part(key).season({"something": "else"})


def test_a_return_that_is_not_a_number_is_refused() -> None:
    """A report's figure that is not a finite decimal is one sentence, never rated."""
    with pytest.raises(ConfigError, match="not a"):
        fraction("NaN")
    with pytest.raises(ConfigError, match="not a"):
        fraction("lots")
