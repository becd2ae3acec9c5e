"""A report holds what every agent said (issue 30 item 5): texts, targets and reasons.

A weights replay with a scripted agent and a baseline: REPORT.json's entries carry
the targets as applied (after the 40% cap), the reason and the capped symbols; its
``answers`` carry the scripted agent's raw texts (source ``scripted``) and the
baseline's generated ones (marked ``generated``); ``tradeleague log --agent s``
prints the scripted texts.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tradeleague.cli import app

ANSWERS: list[dict[str, object]] = [
    {"targets": {"SPY": 45, "QQQ": 30}, "reason": "Index funds; SPY above the cap."},
    {"targets": {"SGOV": 30.5}, "reason": "Partly cash-like."},
]
SEASON = "replay-us_equities_daily-2025-06-02-2025-06-04-open"


def test_a_scripted_agents_texts_targets_and_reasons_are_in_the_report_and_log(
    shared_data: Path, tmp_path: Path
) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text("".join(json.dumps({"text": json.dumps(a)}) + "\n" for a in ANSWERS))
    db = f"sqlite:///{tmp_path / 'w.db'}"
    out = tmp_path / "REPORT.json"
    done = CliRunner().invoke(
        app,
        ["replay", "weights", "--market", str(shared_data / "us_equities_daily"),
         "--symbols", "SPY,QQQ,SGOV", "--start", "2025-06-02", "--end", "2025-06-04",
         "--agent", f"s=scripted:{script}", "--agent", "cash=baseline:cash",
         "--db", db, "--out", str(out)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    report = json.loads(out.read_text())
    entries = {a["name"]: a["entries"] for a in report["agents"]}
    assert [(e["targets"], e["reason"], e["capped"]) for e in entries["s"]] == [
        ({"QQQ": "30.00", "SPY": "40.00"}, ANSWERS[0]["reason"], ["SPY"]),  # cut to 40
        ({"SGOV": "30.50"}, ANSWERS[1]["reason"], []),
    ]
    said = report["answers"]["s"]
    assert [json.loads(row["text"]) for row in said] == ANSWERS
    assert {(row["source"], row["generated"]) for row in said} == {("scripted", False)}
    assert [row["fields"]["targets"] for row in said] == [e["targets"] for e in entries["s"]]
    cash = report["answers"]["cash"]
    assert {(row["source"], row["generated"]) for row in cash} == {("baseline", True)}
    assert all(json.loads(row["text"])["targets"] == {} for row in cash)

    logged = CliRunner().invoke(
        app, ["log", "--season", SEASON, "--db", db, "--agent", "s"], env={"COLUMNS": "400"}
    )
    assert logged.exit_code == 0, logged.output
    flat = " ".join(logged.output.split())
    for answer in ANSWERS:
        assert str(answer["reason"]) in flat
    assert '"SGOV": 30.5' in flat
    assert "scripted" in flat
    as_json = CliRunner().invoke(app, ["log", "--season", SEASON, "--db", db, "--json"])
    rows = [json.loads(line) for line in as_json.output.splitlines()]
    assert {r["agent"] for r in rows} == {"s", "cash"}
