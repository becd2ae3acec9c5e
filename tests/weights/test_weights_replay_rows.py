"""A replay of more agents than a terminal table shows: the first 50 and where the rest are.

One replay of 51 baselines over a week of daily bars: its board, its per-agent
summary and its cost table show the first 50 agents of the board and one line
saying how many are left out and where every row is (issue 31); REPORT.json
holds all 51; ``--all`` prints every row, and ``weights table`` does the same
(W-RNK-3: the rows shown are the board's first, in rank order).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.terminal.rows import SHOWN

KINDS = ("cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip")
AGENTS = SHOWN + 1


def _board_names(output: str) -> list[str]:
    """Return the agent names of the board's rows, in the order printed (rank, then name)."""
    return re.findall(r"^│\s+(?:\d+|-)\s+│ (a\d\d) ", output, flags=re.MULTILINE)


def _summary_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if re.match(r"^  a\d\d: decisions ", line)]


@pytest.mark.shared_data
def test_a_board_of_more_than_fifty_agents_shows_fifty_and_says_where_the_rest_are(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 31, W-RNK-3: 50 rows of 51, one line naming REPORT.json; --all and the JSON: all."""
    db = f"sqlite:///{tmp_path / 'rows.db'}"
    report = tmp_path / "REPORT.json"
    args = ["replay", "weights", "--market", str(shared_data / "us_equities_daily"),
            "--symbols", "SPY,QQQ,SGOV", "--start", "2025-06-02", "--end", "2025-06-09",
            "--season", "ROWS", "--db", db, "--out", str(report)]  # fmt: skip
    for i in range(AGENTS):
        args += ["--agent", f"a{i:02d}=baseline:{KINDS[i % len(KINDS)]}"]
    runner = CliRunner()
    first = runner.invoke(app, args, terminal_width=250)
    assert first.exit_code == 0, first.output
    shown = _board_names(first.output)
    assert len(shown) == SHOWN
    rest = "1 more agent not shown here (--all shows every row): see "
    lines = [line for line in first.output.splitlines() if line.startswith(rest)]
    assert len(lines) == 2  # under the board and under the cost table
    assert str(report) in lines[0]
    assert "tradeleague weights table --season ROWS" in lines[0]
    assert len(_summary_lines(first.output)) == SHOWN
    payload = json.loads(report.read_text(encoding="utf-8"))
    assert len(payload["agents"]) == AGENTS
    assert len(payload["costs"]["agents"]) == AGENTS
    ranked = sorted(payload["agents"], key=lambda a: (a["rank"] is None, a["rank"] or 0))
    assert shown == [a["name"] for a in ranked][:SHOWN]  # the board's first 50, in its order

    again = runner.invoke(app, [*args, "--all"], terminal_width=250)  # resumes: nothing to play
    assert again.exit_code == 0, again.output
    assert _board_names(again.output) == [a["name"] for a in ranked]
    assert len(_summary_lines(again.output)) == AGENTS
    assert "more agent" not in again.output

    table = runner.invoke(app, ["weights", "table", "--season", "ROWS", "--db", db],
                          terminal_width=250)  # fmt: skip
    assert table.exit_code == 0, table.output
    assert _board_names(table.output) == shown
    assert f"{rest}the season's board on the site (`tradeleague serve --db {db}`)." in table.output
    every = runner.invoke(app, ["weights", "table", "--season", "ROWS", "--db", db, "--all"],
                          terminal_width=250)  # fmt: skip
    assert every.exit_code == 0, every.output
    assert _board_names(every.output) == [a["name"] for a in ranked]
