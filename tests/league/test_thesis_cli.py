"""``tradeleague replay thesis`` writes REPORT.json with every field issue 14 names, and resumes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.store import open_store


def test_replay_thesis_cli_writes_the_report_and_resumes(shared_data: Path, tmp_path: Path) -> None:
    """T-CYC-10, T-SCO-1: the report's cycles, entries and metrics; the same command resumes."""
    script = tmp_path / "m.jsonl"
    answer = {
        "reasoning": "One idea. One level.",
        "market_context": {"overall_sentiment": "bullish", "key_factors": []},
        "decisions": [{"action": "open_long", "symbol": "BRK.B", "percent_of_equity": 10,
                       "confidence": 0.8, "invalidation_price": 1, "thesis": "t",
                       "invalidation": "i"}],
    }  # fmt: skip
    script.write_text(json.dumps({"text": json.dumps(answer)}) + "\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    out = tmp_path / "REPORT.json"
    args = [
        "replay", "thesis", "--crypto", str(shared_data / "crypto_4h"),
        "--stocks", str(shared_data / "us_equities_daily"), "--start", "2025-03-03",
        "--end", "2025-03-05", "--agent", "cash=baseline:cash", "--agent", f"m=scripted:{script}",
        "--agent", "mirror=inverse:m", "--join", "mirror=1", "--db", db, "--out", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["scoring_version"] == "thesis-scoring-v2"
    assert report["prompt_version"].startswith("thesis-prompt-")
    first = report["cycles"][0]
    assert set(first) >= {"time", "screen", "rsi", "prices"}
    assert {"BTC", "SPY", "BRK.B"} - set(first["prices"]) == {"BRK.B"}  # not held yet
    assert "BRK.B" in report["cycles"][1]["prices"]  # held: shown from the next cycle
    m = next(a for a in report["agents"] if a["name"] == "m")
    entry = m["entries"][0]
    assert set(entry) >= {"cycle", "attempt", "raw_answer", "decisions", "equity", "cash"}
    decision = entry["decisions"][0]
    assert set(decision) >= {"action", "symbol", "status", "reason_code", "quantity", "price"}
    assert (decision["symbol"], decision["status"]) == ("BRK.B", "executed")
    assert set(entry["positions"]) == {"BRK.B"}
    assert set(m["metrics"]) == {"return", "max_drawdown", "sharpe", "sortino", "win_rate",
                                 "exposure"}  # fmt: skip
    assert m["rank"] in (1, 2, 3)
    assert "monitor_closes" in m
    mirror = next(a for a in report["agents"] if a["name"] == "mirror")
    assert mirror["entered_cycle"] == 1
    with open_store(db) as store:
        head = store.head()
    again = CliRunner().invoke(app, args, terminal_width=200)
    assert again.exit_code == 0, again.output
    with open_store(db) as store:
        assert store.head() == head  # a finished season: nothing appended
    bad = CliRunner().invoke(app, [*args[:8], "--end", "2025-04-30", *args[10:]])
    assert bad.exit_code != 0
    assert isinstance(bad.exception, ConfigError)  # one sentence from main(), never a crash
