"""A small sweep on a local Ray of two workers equals the same replays run alone (issue 16, item 7).

The grid: the weights league (Open) over a week of real daily bars, two rosters
of baselines x two seeds; the direction arena over half an hour of real
one-minute candles x two seeds; the thesis league over a week x two seeds.
Each cell's REPORT.json, written by a Ray worker, is byte-equal to the one
``tradeleague replay FORMAT`` writes in this process with the same options;
the merged report holds their figures. One local Ray starts per module (its
own temporary folder and token, so two test workers never share a cluster).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.sweep.config import load_sweep
from tradeleague.sweep.merge import cell_figures, merged_report
from tradeleague.sweep.run import start_local_ray

SWEEP = """
seeds = [0, 7]
[weights.seasons.june]
market = "{data}/us_equities_daily"
symbols = ["SPY", "QQQ", "TLT"]
start = "2025-06-02"
end = "2025-06-07"
[weights.rosters]
steady = ["cash=baseline:cash", "ew=baseline:equal-weight"]
luck = ["coin=baseline:coin-flip", "mom=baseline:momentum"]
[direction.seasons.sep]
market = "{data}/crypto_1m"
start = "2025-09-01T06:00:00Z"
end = "2025-09-01T06:30:00Z"
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
def local_ray(ray_module: Any) -> Iterator[Any]:
    """One local Ray of two CPUs for this module, as the sweep starts it (its own folder)."""
    folder = start_local_ray(2, ignore_reinit_error=True)
    try:
        yield ray_module
    finally:
        ray_module.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


def _sweep(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_sweep_on_ray_equals_the_same_replays_run_alone(
    local_ray: Any, tmp_path: Path, shared_data: Path
) -> None:
    config = _sweep(tmp_path, SWEEP.format(data=shared_data))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["sweep", "--config", str(config), "--out", str(out), "--workers", "2"]
    )
    assert result.exit_code == 0, result.output
    assert local_ray.cluster_resources()["CPU"] == 2
    cells = load_sweep(config).cells
    assert len(cells) == 8
    for n in range(1, 9):
        assert f"[{n}/8] " in result.output  # one progress line per finished cell
    # each line names the Ray node that ran the cell (the log's, never the reports': below,
    # the merged report equals the one made from results that name no node)
    node = local_ray.get_runtime_context().get_node_id()
    assert result.output.count(f" on Ray node {node})") == 8
    merged = json.loads((out / "REPORT.json").read_text(encoding="utf-8"))
    assert merged["cells_total"] == 8
    assert merged["cells_failed"] == 0
    alone = tmp_path / "alone"
    board_rows = 0
    for cell, entry in zip(cells, merged["cells"], strict=True):
        assert {k: entry[k] for k in ("format", "season", "roster", "seed")} == cell.key
        assert entry["status"] == "ok"
        folder = alone / cell.folder
        folder.mkdir(parents=True)
        single = CliRunner().invoke(app, cell.command(folder))
        assert single.exit_code == 0, single.output
        swept = (out / cell.folder / "REPORT.json").read_bytes()
        assert swept == (folder / "REPORT.json").read_bytes(), cell.label
        assert (out / cell.folder / "store.db").is_file()
        figures = cell_figures(cell.format, json.loads(swept))
        assert entry["figures"] == figures
        board_rows += len(figures)
    assert len(merged["board"]) == board_rows == 4 * 2 + 2 * 2 + 2 * 2
    # the merged report is the one the single-process replays make
    ok = [{"exit_code": 0, "error": None, "seconds": 0.0}] * len(cells)
    assert merged == merged_report(config, alone, cells, ok)
    # the seeds reach the coins: another base seed draws another season of coin flips
    for fmt, roster in (("weights", "luck"), ("direction", "calls"), ("thesis", "coins")):
        coin = {
            c["seed"]: (out / c["report"]).read_text(encoding="utf-8")
            for c in merged["cells"]
            if c["format"] == fmt and c["roster"] == roster
        }
        assert coin[0] != coin[7], fmt
    board = (out / "BOARD.md").read_text(encoding="utf-8")
    assert "| weights | june | steady | 0 | cash |" in board
    # the sweep ends with each format's rating across its seasons and seeds (issue 27 item 5)
    for title in ("Weights league", "Direction arena", "Thesis league"):
        assert f"{title}: rating across seasons" in result.output
    assert f"tradeleague rating --sweep {out} --json" in result.output
    assert merged["cells"][-1]["agents"] == {
        "cash": "cash=baseline:cash",
        "coin": "coin=baseline:coin-flip",
    }


def test_a_failed_cell_fails_the_sweep_and_the_others_still_run(
    local_ray: Any, tmp_path: Path, shared_data: Path
) -> None:
    text = f"""
[weights.seasons.june]
market = "{shared_data}/us_equities_daily"
symbols = ["SPY"]
start = "2025-06-02"
end = "2025-06-05"
[weights.seasons.y1990]
market = "{shared_data}/us_equities_daily"
symbols = ["SPY"]
start = "1990-01-01"
end = "1990-01-08"
[weights.rosters]
one = ["cash=baseline:cash"]
"""
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["sweep", "--config", str(_sweep(tmp_path, text)),
                                      "--out", str(out)])  # fmt: skip
    assert result.exit_code == 1, result.output
    merged = json.loads((out / "REPORT.json").read_text(encoding="utf-8"))
    by_season = {c["season"]: c for c in merged["cells"]}
    assert by_season["june"]["status"] == "ok"
    assert by_season["y1990"]["status"] == "failed"
    assert by_season["y1990"]["exit_code"] == 2
    assert "no trading day" in by_season["y1990"]["error"]
    assert by_season["y1990"]["figures"] is None
    assert [row["season"] for row in merged["board"]] == ["june"]
    assert "1 of 2 cells failed" in result.output


def test_a_local_sweep_writes_the_reports_of_the_ray_sweep(
    local_ray: Any, tmp_path: Path, shared_data: Path
) -> None:
    """`sweep --local --workers 2` (processes, no Ray) writes every REPORT.json Ray writes."""
    text = SWEEP.format(data=shared_data).split("[thesis.")[0]  # weights and direction: 6 cells
    config = _sweep(tmp_path, text)
    outs = {"ray": tmp_path / "ray", "local": tmp_path / "local"}
    for how, out in outs.items():
        argv = ["sweep", "--config", str(config), "--out", str(out), "--workers", "2"]
        result = CliRunner().invoke(app, [*argv, "--local"] if how == "local" else argv)
        assert result.exit_code == 0, result.output
        assert "[6/6] " in result.output
    reports = sorted(p.relative_to(outs["ray"]) for p in outs["ray"].rglob("REPORT.json"))
    assert len(reports) == 7  # six cells and the merged one
    assert reports == sorted(
        p.relative_to(outs["local"]) for p in outs["local"].rglob("REPORT.json")
    )
    for name in [*reports, Path("BOARD.md")]:
        assert (outs["local"] / name).read_bytes() == (outs["ray"] / name).read_bytes(), name


def test_local_and_address_are_refused_together(tmp_path: Path) -> None:
    config = _sweep(tmp_path, SWEEP.format(data=tmp_path))
    argv = ["sweep", "--config", str(config), "--local", "--address", "ray://h:10001"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code != 0
    assert "leave out --address" in str(result.exception)
