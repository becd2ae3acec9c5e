"""``tradeleague data inspect``: tables, JSON, and one-sentence errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import DataError

HEADER = "timestamp,open,high,low,close,volume\n"
ROWS = [
    "2025-07-01T00:00:00Z,10.5,11,10,10.75,100",
    "2025-07-03T00:00:00Z,12,12.5,11,12.1,300",
    "2025-07-07T00:00:00Z,12.1,12.2,11.9,12.0,400",
    "2025-07-08T00:00:00Z,12,12.2,11.9,12.1,400",
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    data = tmp_path / "eq"
    data.mkdir()
    (data / "AAA.csv").write_text(HEADER + "".join(r + "\n" for r in ROWS))
    (data / "BBB.csv").write_text(HEADER + "".join(r + "\n" for r in ROWS[1:]))
    return data


def test_inspect_table(folder: Path) -> None:
    result = CliRunner().invoke(app, ["data", "inspect", str(folder)], terminal_width=120)
    assert result.exit_code == 0, result.output
    assert "eq: 1d bars, XNYS" in result.output
    assert "AAA" in result.output
    assert "BBB" in result.output
    assert "1: 2025-07-02" in result.output  # AAA misses the 07-02 session
    assert "2 symbols, 7 bars of 1d" in result.output
    assert "1 missing bars" in result.output


def test_inspect_json_keys(folder: Path) -> None:
    result = CliRunner().invoke(app, ["data", "inspect", str(folder), "--json", "--symbols", "AAA"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert set(doc) == {
        "label", "source", "synthetic", "calendar", "bar_size", "bar_size_seconds", "rows",
        "first", "last", "missing_bars", "unexpected_bars", "symbols",
    }  # fmt: skip
    assert (doc["label"], doc["synthetic"], doc["calendar"]) == ("eq", False, "XNYS")
    assert (doc["bar_size"], doc["bar_size_seconds"], doc["rows"]) == ("1d", 86400, 4)
    (aaa,) = doc["symbols"]
    assert aaa["symbol"] == "AAA"
    assert (aaa["first"], aaa["last"]) == ("2025-07-01T00:00:00Z", "2025-07-08T00:00:00Z")
    assert (aaa["expected_bars"], aaa["missing_bars"]) == (5, 1)
    assert aaa["first_missing"] == ["2025-07-02T00:00:00Z"]


def test_inspect_help_teaches_the_layout() -> None:
    result = CliRunner().invoke(app, ["data", "inspect", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "<SYMBOL>.csv" in result.output
    assert "timestamp,open,high,low,close,volume" in result.output
    assert "OPEN time" in result.output


def test_inspect_errors_are_data_errors(folder: Path) -> None:
    result = CliRunner().invoke(app, ["data", "inspect", str(folder / "nope")])
    assert isinstance(result.exception, DataError)
    result = CliRunner().invoke(app, ["data", "inspect", str(folder), "--symbols", "ZZZ"])
    assert isinstance(result.exception, DataError)
    assert "no file for ZZZ" in str(result.exception)


@pytest.mark.parametrize("broken", [False, True])
def test_inspect_error_is_one_sentence_without_traceback(tmp_path: Path, broken: bool) -> None:
    if broken:
        target = tmp_path / "AAA.csv"
        target.write_text(HEADER + "2025-07-01T00:00:00Z,10,9,8,9.5,1\n")
    else:
        target = tmp_path / "missing"
    proc = subprocess.run(
        [sys.executable, "-c", "from tradeleague.cli import main; main()", "data", "inspect",
         str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error:")
    message = " ".join(proc.stderr.split())  # Rich wraps long lines
    assert ("line 2: high 9 is below" if broken else "no such file or folder") in message
