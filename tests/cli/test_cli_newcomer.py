"""What a newcomer following the README meets: verify, log, luck, the thesis board, serve's help.

Each check runs the real command (a subprocess where lazy loading matters) and
reads what it prints, as a person would.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import closed_port, run_cli  # type: ignore[import-not-found]
from rich.console import Console
from typer.testing import CliRunner

from tradeleague import DISCLAIMER
from tradeleague.cli import app
from tradeleague.league.thesis.board_table import board_table


@dataclass(frozen=True)
class Replayed:
    """A short weights replay recorded in a scratch store."""

    folder: Path
    db: str
    season: str
    stdout: str


@pytest.fixture(scope="module")
def replayed(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    """Replay two days: two baselines, a scripted agent and a model on a closed port."""
    folder = tmp_path_factory.mktemp("newcomer")
    script = folder / "answers.jsonl"
    answer = {"targets": {"SPY": 30}, "reason": "Some index, mostly cash."}
    script.write_text(json.dumps({"text": json.dumps(answer)}) + "\n", encoding="utf-8")
    db = f"sqlite:///{folder / 'weights.db'}"
    done = run_cli(
        "replay", "weights", "--market", str(shared_data / "us_equities_daily"),
        "--symbols", "SPY,QQQ", "--start", "2026-07-06", "--end", "2026-07-08",
        "--agent", "cash=baseline:cash", "--agent", "eq=baseline:equal-weight",
        "--agent", f"mine=scripted:{script}",
        "--agent", f"down=openai:any@http://127.0.0.1:{closed_port()}/v1",
        "--timeout", "5", "--db", db, "--no-check",  # played, to read its log
        cwd=folder, OPENAI_API_KEY="sk-test-not-a-key",
    )  # fmt: skip
    assert done.returncode == 3, done.stderr  # `down` never decided: its provider failed
    match = re.search(r"season (\S+)", done.stdout)
    assert match is not None, done.stdout
    return Replayed(folder, db, match.group(1), done.stdout)


def test_verify_alone_rebuilds_the_weights_entries(replayed: Replayed) -> None:
    """A bare `tradeleague verify` (lazy loading, a fresh process) rebuilds weights entries too."""
    done = run_cli("verify", "--db", replayed.db, "--json", cwd=replayed.folder)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    checked = {p["name"]: p for p in report["projections"]}
    assert "weights_entries" in checked
    assert checked["weights_entries"]["keys"] == 1  # the one season stream
    assert report["unchecked_projections"] == []


def test_verify_says_whether_the_published_checkpoint_holds(replayed: Replayed) -> None:
    """The table names the checkpoint it was given and whether the log still holds it."""
    info = run_cli("db", "info", "--db", replayed.db, cwd=replayed.folder)
    head = re.search(r"^head (\d+:[0-9a-f]{64})$", info.stdout, flags=re.MULTILINE)
    assert head is not None, info.stdout
    checkpoint = head.group(1)
    good = run_cli("verify", "--db", replayed.db, "--checkpoint", checkpoint, cwd=replayed.folder)
    assert good.returncode == 0, good.stdout
    flat = " ".join(good.stdout.split())
    assert "published checkpoint" in flat
    assert "holds" in flat
    assert "does NOT hold" not in flat
    forged = f"1:{'ab' * 32}"
    bad = run_cli("verify", "--db", replayed.db, "--checkpoint", forged, cwd=replayed.folder)
    assert bad.returncode == 1
    assert "does NOT hold" in " ".join(bad.stdout.split())


def test_the_summary_names_the_database_to_read_the_log_from(replayed: Replayed) -> None:
    """The hint after a stranded agent is a command to copy, with the real --db."""
    hint = f"tradeleague log --season {replayed.season} --db {replayed.db}"
    assert hint in replayed.stdout
    shown = run_cli(*hint.split()[1:], "--json", cwd=replayed.folder)
    assert shown.returncode == 0, shown.stderr
    rows = [json.loads(line) for line in shown.stdout.splitlines()]
    assert {r["agent"] for r in rows} == {"cash", "eq", "mine", "down"}  # every answer (issue 30)
    assert {r["agent"]: r["source"] for r in rows} == {
        "cash": "baseline", "eq": "baseline", "mine": "scripted", "down": "model",
    }  # fmt: skip
    assert {r["agent"] for r in rows if r["generated"]} == {"cash", "eq"}


def test_an_empty_log_says_what_to_try_next(replayed: Replayed) -> None:
    """No answer of the agent, the round or the season: one sentence, exit 2, what to give."""
    base = ("log", "--season", replayed.season, "--db", replayed.db)
    scripted = run_cli(*base, "--agent", "nobody", cwd=replayed.folder)
    assert scripted.returncode == 2
    assert "the agents that answered are cash, down, eq, mine" in scripted.stderr
    wrong_round = run_cli(*base, "--round", "yesterday", cwd=replayed.folder)
    assert wrong_round.returncode == 2
    assert "e.g. --round 2026-07-06T15:00:00" in wrong_round.stderr
    other = run_cli("log", "--season", "nope", "--db", replayed.db, cwd=replayed.folder)
    assert other.returncode == 2
    assert "give the season id the replay printed" in other.stderr
    for done in (scripted, wrong_round, other):
        assert len(done.stderr.strip().splitlines()) == 1
        assert "Traceback" not in done.stderr


def test_luck_states_the_payout_in_plain_english() -> None:
    """The break-even row reads "at a payout of 80%", never "at a 80% payout"."""
    done = CliRunner().invoke(
        app, ["stats", "luck", "--hit-rate", "53.1", "--trades", "750"], env={"COLUMNS": "200"}
    )
    assert done.exit_code == 0, done.output
    assert "at a payout of 80%." in done.output
    assert "a 80%" not in done.output


def test_the_thesis_board_reads_its_verdicts_and_carries_the_disclaimer() -> None:
    """ST-2: a verdict says its direction ("worse than cash"), never a bare yes or True/False.

    An agent that held no position is listed unranked with its reason; the disclaimer is under.
    """
    row: dict[str, object] = {
        "rank": 1, "unranked_text": None, "name": "hold", "return": "-5.25",
        "max_drawdown": "7.93", "sharpe": "-5.77", "sortino": "-7.07", "win_rate": None,
        "exposure": "99.95", "trades": 10, "closed_trades": 0, "decisions": 10,
        "vs_cash": "worse", "vs_spy": "not_distinguishable", "luckiest_of_n": "1.69",
    }  # fmt: skip
    late: dict[str, object] = {
        **row, "rank": None, "unranked_text": "held no position this season", "name": "late",
        "trades": 0, "vs_cash": "too_few", "vs_spy": "too_few",
    }  # fmt: skip
    console = Console(width=300, record=True, color_system=None)
    console.print(board_table([row, late]))
    text = console.export_text()
    cells = {
        line.split("│")[2].strip(): [c.strip() for c in line.split("│")[1:-1]]
        for line in text.splitlines()
        if line.count("│") > 5
    }
    assert cells["hold"][-5:] == [
        "worse than cash", "not distinguishable from holding SPY", "-", "too few steps", "",
    ]  # fmt: skip
    assert cells["late"][0] == "-"
    assert cells["late"][-5:] == [
        "too few steps to test",
        "too few steps to test",
        "-",
        "too few steps",
        "held no position this season",
    ]
    assert "True" not in text
    assert "False" not in text
    assert "yes" not in text
    assert "better or worse only when the difference is distinguishable" in text
    assert DISCLAIMER in text


def test_serve_help_names_the_site_and_every_board() -> None:
    """`serve --help` says it serves the pages and the thesis league, not only two boards."""
    done = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0
    flat = " ".join(done.output.split())
    assert "Serve the site and the REST API" in flat
    assert "/api/v1/thesis" in flat


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["db", "info", "--db", "postgres://me@127.0.0.1/league"],
            "write a PostgreSQL URL as postgresql+psycopg://USER@HOST:PORT/DATABASE",
        ),
        (
            ["replay", "weights", "--market", "{daily}", "--agent", "a=scripted:nothere.jsonl"],
            "cannot read script nothere.jsonl: no such file (a JSONL file",
        ),
    ],
)
def test_common_slips_say_what_to_write_instead(
    args: list[str], says: str, shared_data: Path, tmp_path: Path
) -> None:
    """A libpq-style URL and a missing script file: one sentence naming the fix, exit 2."""
    daily = str(shared_data / "us_equities_daily")
    done = run_cli(*(a.replace("{daily}", daily) for a in args), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert says in " ".join(done.stderr.split())
    assert "Errno" not in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written
