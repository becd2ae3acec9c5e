"""``replay thesis`` shows what happened as the other replays do (issue 11).

Faults named with their cause and exit status 3, every call in REPORT.json and
``tradeleague log``, ``--timeout``, one plain line per cycle when piped, the
resume hint on Ctrl-C and "resuming from cycle N" on the rerun.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import closed_port, interrupt_at, run_cli  # type: ignore[import-not-found]

from tradeleague.terminal.exits import EXIT_INTERRUPTED, EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault, Script

EMPTY = json.dumps(
    {
        "reasoning": "Nothing to do.",
        "market_context": {"overall_sentiment": "neutral", "key_factors": []},
        "decisions": [],
    }
)


def _folders(shared_data: Path) -> list[str]:
    return [
        "--crypto", str(shared_data / "crypto_4h"),
        "--stocks", str(shared_data / "us_equities_daily"),
    ]  # fmt: skip


def test_thesis_replay_names_faults_logs_calls_and_exits_3(
    shared_data: Path, tmp_path: Path
) -> None:
    """HTTP 400 (context), HTTP 401, a closed port and a model slower than ``--timeout``:
    the summary names each cause, the exit status is 3, a piped run prints one line per
    cycle, REPORT.json and ``log`` hold every call with its latency and fault class.
    """
    script = Script(
        models={
            "small-ctx": Behaviour(fault=Fault.CONTEXT_EXCEEDED),
            "bad-key": Behaviour(fault=Fault.UNAUTHORIZED),
            "slow": Behaviour(text=EMPTY, latency_s=60),  # far past --timeout
            "fine": Behaviour(text=EMPTY),
        }
    )
    db = f"sqlite:///{tmp_path / 'thesis.db'}"
    report = tmp_path / "REPORT.json"
    with FakeProvider(script) as fake:
        done = run_cli(
            "replay", "thesis", *_folders(shared_data),
            "--start", "2025-03-03", "--end", "2025-03-05",
            "--agent", f"ctx=openai:small-ctx@{fake.url}",
            "--agent", f"key=openai:bad-key@{fake.url}",
            "--agent", f"down=openai:any@http://127.0.0.1:{closed_port()}/v1",
            "--agent", f"slow=openai:slow@{fake.url}",
            "--agent", f"fine=openai:fine@{fake.url}",
            "--agent", "cash=baseline:cash",
            "--timeout", "3", "--db", db, "--out", str(report), "--no-check",
            cwd=tmp_path, OPENAI_API_KEY="sk-test-not-a-key",
        )  # fmt: skip
    assert done.returncode == EXIT_NO_DECISIONS, done.stderr
    out = done.stdout
    assert "Traceback" not in out + done.stderr
    cycles = [line for line in out.splitlines() if line.startswith("cycle ")]
    assert [c.split(":")[0].split()[1] for c in cycles] == ["1/2", "2/2"]
    assert all("decisions 2, no decision 4, skipped 0" in c for c in cycles), cycles
    assert "ctx never decided: the prompt of 2503 tokens does not fit" in out
    assert "key never decided: the provider refused its key (HTTP 401" in out
    assert "down never decided: nothing answered at the provider's address" in out
    assert "slow never decided: no answer came in time" in out
    assert "raise --timeout" in out
    assert "cash: decisions 2; no decision: none; provider faults: none" in out
    assert "fine: decisions 2; no decision: none; provider faults: none" in out
    assert "tradeleague log --season replay-2025-03-03-2025-03-05" in out

    every = json.loads(report.read_text())["answers"]
    assert {r["source"] for r in every["cash"]} == {"baseline"}  # every agent's answer (issue 30)
    answers = {name: rows for name, rows in every.items() if rows[0]["source"] == "model"}
    assert all(r["fields"]["attempt"] is not None for rows in answers.values() for r in rows)
    classes = {name: {c["error_class"] for c in calls} for name, calls in answers.items()}
    assert classes == {
        "ctx": {"context_too_small"},
        "key": {"key_rejected"},
        "down": {"connection_refused"},
        "slow": {"timeout"},
        "fine": {None},
    }
    for calls in answers.values():
        assert len(calls) == 2  # one call a cycle: no answer, no correction round
        assert all(isinstance(c["latency_ms"], int) and c["latency_ms"] >= 0 for c in calls)
    assert all(c["latency_ms"] < 30_000 for c in answers["slow"])  # cut at --timeout

    logged = run_cli(
        "log", "--season", "replay-2025-03-03-2025-03-05", "--db", db, "--json", cwd=tmp_path
    )
    assert logged.returncode == 0, logged.stderr
    rows = [json.loads(line) for line in logged.stdout.splitlines()]
    rows = [r for r in rows if r["source"] == "model"]
    assert sorted((r["agent"], r["error_class"], r["latency_ms"]) for r in rows) == sorted(
        (name, c["error_class"], c["latency_ms"]) for name, calls in answers.items() for c in calls
    )


def test_piped_thesis_replay_prints_a_line_a_cycle_and_sigint_says_how_to_resume(
    shared_data: Path, tmp_path: Path
) -> None:
    """Piped: one plain line per cycle; Ctrl-C: the resume hint and 130; the rerun:
    "resuming from cycle N", every cycle's line, and the board.
    """
    args = [
        "replay", "thesis", *_folders(shared_data),
        "--start", "2025-03-03", "--end", "2025-03-31",
        "--agent", "cash=baseline:cash", "--agent", "hold=baseline:buy-and-hold",
        "--agent", "coin=baseline:coin-flip",
        "--db", f"sqlite:///{tmp_path / 'thesis.db'}",
    ]  # fmt: skip
    line, status, err = interrupt_at(*args, cwd=tmp_path, prefix="cycle 3/")
    assert line.startswith("cycle 3/28 2025-03-05T16:00:00+00:00: decisions "), line
    assert status == EXIT_INTERRUPTED, err
    assert "run the same command again to resume" in err
    assert "Traceback" not in err

    rerun = run_cli(*args, cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    lines = rerun.stdout.splitlines()
    resumed = [x for x in lines if x.startswith("resuming from cycle ")]
    assert len(resumed) == 1, lines[:3]
    done_before = int(resumed[0].split()[3]) - 1
    assert 3 <= done_before < 28
    assert f"({done_before} already recorded in season replay-2025-03-03-2025-03-31)" in resumed[0]
    progress = [x for x in lines if x.startswith("cycle ")]
    assert [x.split()[1] for x in progress] == [f"{n}/28" for n in range(1, 29)]
    assert all("decisions" in x and "no decision" in x for x in progress)
    assert "cash: decisions 28; no decision: none; provider faults: none" in rerun.stdout

    again = run_cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "all 28 cycles are already recorded in season" in again.stdout
