"""``tradeleague sweep`` refuses a bad sweep file: exit 2, one sentence, nothing written.

These need no Ray: the file is checked before Ray is imported or started.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tradeleague.cli import main
from tradeleague.sweep.config import MAX_CELLS, load_sweep
from tradeleague.testing.ports import refusing_port

GOOD = """
seeds = [0, 1]
[weights.seasons.june]
market = "{daily}"
symbols = ["SPY", "QQQ"]
start = "2025-06-02"
end = "2025-06-09"
[weights.rosters]
a = ["cash=baseline:cash", "mom=baseline:momentum"]
b = ["coin=baseline:coin-flip"]
[direction.seasons.sep]
market = "{minute}"
start = 2025-09-01T06:00:00Z
end = "2025-09-01T06:30Z"
[direction.rosters]
c = ["up=baseline:up", "coin=baseline:coin-flip"]
"""


def _write(tmp_path: Path, text: str, data: Path) -> Path:
    path = tmp_path / "sweep.toml"
    text = text.replace("{daily}", str(data / "us_equities_daily"))
    path.write_text(text.replace("{minute}", str(data / "crypto_1m")), encoding="utf-8")
    return path


def test_a_good_file_makes_the_grid_of_replay_commands(tmp_path: Path, shared_data: Path) -> None:
    """Formats x seasons x rosters x seeds: 1x2x2 weights cells and 1x1x2 direction cells."""
    sweep = load_sweep(_write(tmp_path, GOOD, shared_data))
    keys = [(c.format, c.season, c.roster, c.seed) for c in sweep.cells]
    assert keys == [
        ("weights", "june", "a", 0), ("weights", "june", "a", 1),
        ("weights", "june", "b", 0), ("weights", "june", "b", 1),
        ("direction", "sep", "c", 0), ("direction", "sep", "c", 1),
    ]  # fmt: skip
    first = sweep.cells[0]
    assert first.args[:2] == ("replay", "weights")
    assert sweep.cells[1].args[-2:] == ("--seed", "1")
    assert "--agent" in first.args
    assert "cash=baseline:cash" in first.args
    direction = sweep.cells[-1]
    assert direction.args[direction.args.index("--start") + 1] == "2025-09-01T06:00:00Z"
    assert direction.folder == Path("cells/direction/sep/c/seed-1")


def test_the_example_sweep_file_is_valid_as_shipped(shared_data: Path) -> None:
    """examples/sweep.toml (the README's sweep) names all three formats and loads."""
    example = Path(__file__).resolve().parents[2] / "examples" / "sweep.toml"
    sweep = load_sweep(example)
    assert {c.format for c in sweep.cells} == {"weights", "direction", "thesis"}
    assert all(c.args[:2] == ("replay", c.format) for c in sweep.cells)


BAD = {
    "unknown top key": ('seeds = [0]\nscenario = 1\n', "unknown key 'scenario'"),
    "format not a table": ('seeds = [0]\nthesis = 1\n', "[thesis] must be a table"),
    "not toml": ("seeds = [", "not valid TOML"),
    "empty": ("", "names no replay"),
    "bad seed": ("seeds = [-1]\n", "seed -1"),
    "repeated seed": ("seeds = [1, 1]\n", "repeat"),
    "unknown season key": (
        GOOD.replace('symbols = ["SPY", "QQQ"]', 'symbol = "SPY"'),
        "unknown key 'symbol'",
    ),
    "missing market folder": (
        GOOD.replace('market = "{daily}"', 'market = "nowhere"'),
        "does not exist",
    ),
    "bad day": (GOOD.replace('"2025-06-09"', '"June 9th"'), "a day like"),
    "end before start": (GOOD.replace('"2025-06-09"', '"2025-05-01"'), "not after start"),
    "bad division": (GOOD.replace('end = "2025-06-09"', 'end = "2025-06-09"\ndivision = "x"'),
                     "division"),
    "unknown baseline": (GOOD.replace("baseline:momentum", "baseline:nosuch"), "nosuch"),
    "roster not a list": (GOOD.replace('b = ["coin=baseline:coin-flip"]', 'b = "x"'),
                          "name=spec"),
    "bad name": (GOOD.replace("[weights.seasons.june]", '[weights.seasons."a/b"]'),
                 "letters, digits"),
    "no rosters": (GOOD.replace("[direction.rosters]\n", "").replace(
        'c = ["up=baseline:up", "coin=baseline:coin-flip"]', ""), "[direction.rosters] is missing"),
    "bad payout": (GOOD.replace('end = "2025-09-01T06:30Z"', 'end = "2025-09-01T06:30Z"\n'
                                'payout = 5000'), "payout"),
    "too many cells": (
        "seeds = [" + ", ".join(str(i) for i in range(100)) + "]\n"
        + "[weights.seasons]\n" + "".join(
            f's{i} = {{ market = "{{daily}}", start = "2025-06-02", end = "2025-06-09" }}\n'
            for i in range(11)
        ) + '[weights.rosters]\nr = ["cash=baseline:cash"]\n',
        f"more than {MAX_CELLS} cells",
    ),
}  # fmt: skip


def _refused(config: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """Run ``sweep`` on ``config``; check exit 2, one ``error:`` line and no --out; return it."""
    out = config.parent / "out"
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", "--config", str(config), "--out", str(out), *extra])
    assert exit_info.value.code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_sweep_file_exits_2_in_one_sentence_and_writes_nothing(
    case: str, tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = BAD[case]
    assert expected in _refused(_write(tmp_path, text, shared_data), capsys)


def test_without_ray_the_sweep_says_how_to_install_it(
    tmp_path: Path,
    shared_data: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A missing extra is one sentence naming tradeleague[ray]; nothing is written."""
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    assert "tradeleague[ray]" in _refused(_write(tmp_path, GOOD, shared_data), capsys)


def test_a_ray_address_where_nothing_answers_is_one_sentence(
    ray_module: object, tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ray itself would retry for minutes; the sweep says at once that nothing answers."""
    config = _write(tmp_path, GOOD, shared_data)
    address = f"127.0.0.1:{refusing_port()}"  # refused, and held so nothing takes it
    line = _refused(config, capsys, "--address", address)
    assert f"nothing answers at {address}" in line


def test_a_local_ray_that_cannot_start_is_one_sentence(
    ray_module: Any,
    tmp_path: Path,
    shared_data: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ray's daemons failing to come up (no shared memory, ports taken) is one sentence, no
    traceback, and its temporary folder is removed."""
    folders: list[str] = []

    def refuse(**settings: Any) -> None:
        folders.append(str(settings["_temp_dir"]))
        raise RuntimeError("Failed to start the GCS server.\nIts log says more, for pages.")

    monkeypatch.setenv("RAY_AUTH_TOKEN", "0" * 64)  # the sweep leaves a set token as it is
    monkeypatch.setattr(ray_module, "is_initialized", lambda: False)
    monkeypatch.setattr(ray_module, "init", refuse)
    line = _refused(_write(tmp_path, GOOD, shared_data), capsys)
    assert line.endswith("a local Ray could not start: Failed to start the GCS server.")
    assert folders
    assert not Path(folders[0]).exists()
