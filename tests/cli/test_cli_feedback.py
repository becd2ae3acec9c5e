"""A user sees what happened (issue 11): faults named, answers logged, progress, resuming."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_helpers import closed_port, interrupt_at, run_cli  # type: ignore[import-not-found]

from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault, Script


def test_provider_faults_are_named_logged_and_exit_3(shared_data: Path, tmp_path: Path) -> None:
    """HTTP 400 (context), HTTP 401 and a closed port: the summary names each cause and fix,
    the exit status is the documented one, REPORT.json and ``log`` hold every call with latency.
    """
    script = Script(
        models={
            "small-ctx": Behaviour(fault=Fault.CONTEXT_EXCEEDED),
            "bad-key": Behaviour(fault=Fault.UNAUTHORIZED),
        }
    )
    db = f"sqlite:///{tmp_path / 'league.db'}"
    report = tmp_path / "REPORT.json"
    with FakeProvider(script) as fake:
        done = run_cli(
            "replay", "weights", "--market", str(shared_data / "us_equities_1h"),
            "--agent", f"ctx=openai:small-ctx@{fake.url}",
            "--agent", f"key=openai:bad-key@{fake.url}",
            "--agent", f"down=openai:any@http://127.0.0.1:{closed_port()}/v1",
            "--agent", "cash=baseline:cash",
            "--start", "2025-06-02", "--end", "2025-06-04", "--timeout", "10",
            "--db", db, "--out", str(report), "--no-check",
            cwd=tmp_path, OPENAI_API_KEY="sk-test-not-a-key",
        )  # fmt: skip
    assert done.returncode == EXIT_NO_DECISIONS, done.stderr
    out = done.stdout
    assert "ctx never decided: the prompt of 2503 tokens does not fit" in out
    assert "context holds 512" in out
    assert "key never decided: the provider refused its key (HTTP 401" in out
    assert "down never decided: nothing answered at the provider's address" in out
    assert "Connection refused" in out or "ConnectionRefusedError" in out
    assert "timed out" not in out.split("down never decided")[1].splitlines()[0]
    assert "cash: decisions 2; no decision: none; provider faults: none" in out

    every = json.loads(report.read_text())["answers"]
    assert every["cash"][0]["source"] == "baseline"  # every agent's answer (issue 30)
    answers = {name: rows for name, rows in every.items() if rows[0]["source"] == "model"}
    assert set(answers) == {"ctx", "key", "down"}
    classes = {name: {c["error_class"] for c in calls} for name, calls in answers.items()}
    assert classes == {
        "ctx": {"context_too_small"},
        "key": {"key_rejected"},
        "down": {"connection_refused"},
    }
    for calls in answers.values():
        assert len(calls) == 2  # the Open division is asked once a day, two days
        assert all(isinstance(c["latency_ms"], int) and c["latency_ms"] >= 0 for c in calls)
        assert all(c["outcome"] != "answered" and c["error"] for c in calls)

    season = "replay-us_equities_1h-2025-06-02-2025-06-04-open"
    logged = run_cli("log", "--season", season, "--db", db, "--json", cwd=tmp_path)
    assert logged.returncode == 0, logged.stderr
    rows = [json.loads(line) for line in logged.stdout.splitlines()]
    rows = [r for r in rows if r["source"] == "model"]
    assert sorted((r["agent"], r["error_class"], r["latency_ms"]) for r in rows) == sorted(
        (name, c["error_class"], c["latency_ms"]) for name, calls in answers.items() for c in calls
    )
    table = run_cli("log", "--season", season, "--db", db, "--agent", "key", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert "key_rejected" in table.stdout
    assert " ms" in table.stdout
    assert "ctx" not in table.stdout.replace("context", "")


def test_piped_replay_prints_a_line_a_round_and_sigint_says_how_to_resume(
    shared_data: Path, tmp_path: Path
) -> None:
    """Piped: one plain line per round; Ctrl-C: the resume hint; the rerun: "resuming"."""
    args = [
        "replay", "weights", "--market", str(shared_data / "us_equities_1h"),
        "--agent", "cash=baseline:cash", "--agent", "mom=baseline:momentum",
        "--start", "2025-03-03", "--end", "2025-06-30",
        "--db", f"sqlite:///{tmp_path / 'league.db'}",
    ]  # fmt: skip
    line, status, err = interrupt_at(*args, cwd=tmp_path, prefix="round 3/")
    assert line.startswith("round 3/"), "no plain progress line per round when piped"
    assert status == 130
    assert "run the same command again to resume" in err
    assert "Traceback" not in err

    rerun = run_cli(*args, cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    resumed = [x for x in rerun.stdout.splitlines() if x.startswith("resuming from round ")]
    assert len(resumed) == 1
    done_before = int(resumed[0].split()[3]) - 1
    assert done_before >= 3
    progress = [x for x in rerun.stdout.splitlines() if x.startswith("round ")]
    total = int(progress[0].split()[1].split("/")[1])
    assert [int(x.split()[1].split("/")[0]) for x in progress] == list(range(1, total + 1))
    assert all("decisions" in x and "no decision" in x for x in progress)


def test_direction_board_shows_the_cause_beside_timeout_skips(
    shared_data: Path, tmp_path: Path
) -> None:
    """An arena model whose every call got HTTP 400 keeps the seed's ``timeout`` class,
    with the cause beside it, and the replay exits 3 with REPORT.json's answers.
    """
    report = tmp_path / "REPORT.json"
    with FakeProvider(Script(models={"m": Behaviour(fault=Fault.CONTEXT_EXCEEDED)})) as fake:
        done = run_cli(
            "replay", "direction", "--market", str(shared_data / "crypto_1m"),
            "--agent", f"ctx=openai:m@{fake.url}", "--agent", "up=baseline:up",
            "--start", "2025-09-01T06:00Z", "--end", "2025-09-01T06:20Z", "--timeout", "10",
            "--db", f"sqlite:///{tmp_path / 'arena.db'}", "--out", str(report), "--no-check",
            cwd=tmp_path, OPENAI_API_KEY="sk-test-not-a-key",
        )  # fmt: skip
    assert done.returncode == EXIT_NO_DECISIONS, done.stderr
    flat = " ".join(done.stdout.replace("│", " ").split())
    assert "timeout:4 (context_too_small 4)" in flat
    assert "ctx never decided: the prompt of 2503 tokens does not fit" in flat
    assert len([line for line in done.stdout.splitlines() if line.startswith("round ")]) == 4
    calls = json.loads(report.read_text())["answers"]["ctx"]
    assert len(calls) == 4
    assert {c["error_class"] for c in calls} == {"context_too_small"}


def test_on_a_terminal_a_bar_with_eta_and_the_rounds_counts(
    shared_data: Path, tmp_path: Path
) -> None:
    """On a terminal: a bar with rounds done of all, an ETA and the last round's counts,
    instead of the plain line a round.
    """
    done = run_cli(
        "replay", "weights", "--market", str(shared_data / "us_equities_1h"),
        "--agent", "cash=baseline:cash", "--agent", "mom=baseline:momentum",
        "--start", "2025-06-02", "--end", "2025-06-20",
        "--db", f"sqlite:///{tmp_path / 'league.db'}",
        cwd=tmp_path, FORCE_COLOR="1",  # Rich draws for a terminal
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", done.stdout).replace("\r", "\n")
    bars = [line for line in plain.splitlines() if " ETA " in line]
    assert bars, "no progress bar drawn on a terminal"
    assert any(re.search(r"decisions \d+, no decision \d+, skipped \d+", b) for b in bars)
    assert any(re.search(r"\b65/65\b", b) for b in bars)  # 13 trading days x 5 rounds
    assert not [line for line in plain.splitlines() if line.startswith("round ")]
