"""``tradeleague replay weights --replay-answers FROM_DB``: a season re-run from its record.

Names: C-5 (every call recorded; a season re-runs from its recorded answers with
identical decisions, fills and ranks, and no model is called), C-2 (one code path:
the replayed run is the same round code over a replay gateway).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.formats.weights import Division
from tradeleague.league.weights.replay import replay_season_id
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest
from tradeleague.testing.fake_script import Behaviour, Fault

SYMBOLS = "SPY,QQQ,SGOV,USO,AAPL"
START, END = "2026-07-06", "2026-07-14"
TARGETS = [
    {"SPY": 40, "QQQ": 30, "SGOV": 20},
    {"USO": 35, "AAPL": 25},
    {"SGOV": 40, "SPY": 10},
]


def _fake() -> FakeProvider:
    fake = FakeProvider()
    turns = {"n": 0}

    def rotate(_request: ReceivedRequest) -> str:
        turns["n"] += 1
        targets = TARGETS[turns["n"] % len(TARGETS)]
        return json.dumps({"targets": targets, "reason": f"Rotation {turns['n']}."})

    fake.respond_with("rotor", rotate)
    fake.script_model("broken", Behaviour(fault=Fault.SERVER_ERROR))
    fake.script_model(
        "slow",
        Behaviour(text=json.dumps({"targets": TARGETS[0], "reason": "Slow."}), latency_s=0.2),
    )
    fake.script_model("hang", Behaviour(fault=Fault.HANG))
    fake.enqueue("flaky", "I would buy SPY.", Behaviour(fault=Fault.RATE_LIMITED))
    fake.script_model("flaky", json.dumps({"targets": TARGETS[1], "reason": "Flaky."}))
    return fake


def _agents(url: str) -> list[str]:
    names = ("rotor", "broken", "slow", "hang", "flaky")
    specs = [f"m_{n}=openai:{n}@{url}" for n in names] + ["cash=baseline:cash"]
    return [part for spec in specs for part in ("--agent", spec)]


def _run(tmp: Path, url: str, db: str, out: str, *extra: str) -> Any:
    # --timeout 2: the slow model (0.2 s) answers in time however loaded the machine
    args = [
        "replay", "weights", "--market", str(tmp / "bars"), "--symbols", SYMBOLS,
        "--start", START, "--end", END, "--timeout", "2", "--no-check",
        "--db", f"sqlite:///{tmp / db}", "--out", str(tmp / out), *_agents(url), *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-test", "COLUMNS": "200"})


def _calls(db: Path) -> list[dict[str, Any]]:
    with open_store(f"sqlite:///{db}", upgrade=False) as store:
        return [
            dict(s.event.payload) for s in store.events() if s.event.kind == EventKind.MODEL_CALLED
        ]


def _market(shared_data: Path, tmp: Path) -> Path:
    (tmp / "bars").mkdir()
    for symbol in SYMBOLS.split(","):
        bars = shared_data / "us_equities_daily" / f"{symbol}.csv"
        (tmp / "bars" / f"{symbol}.csv").symlink_to(bars)
    return tmp


def test_weights_replay_answers_reproduce_the_season(shared_data: Path, tmp_path: Path) -> None:
    """C-5: re-run from FROM_DB gives the identical REPORT.json; no model request is sent."""
    market = _market(shared_data, tmp_path)
    with _fake() as fake:
        url = fake.url
        live = _run(market, url, "a.db", "a.json")
        # m_broken and m_hang never decide: the replay names why and exits 3.
        assert live.exit_code == EXIT_NO_DECISIONS, live.output
        asked = len(fake.requests)
        replayed = _run(market, fake.url, "b.db", "b.json", "--replay-answers", _url(market, "a"))
        assert replayed.exit_code == EXIT_NO_DECISIONS, replayed.output
        assert len(fake.requests) == asked  # the server was up, and got nothing
    stopped = _run(market, url, "c.db", "c.json", "--replay-answers", _url(market, "a"))
    assert stopped.exit_code == EXIT_NO_DECISIONS, stopped.output

    report = json.loads((market / "a.json").read_text(encoding="utf-8"))
    assert json.loads((market / "b.json").read_text(encoding="utf-8")) == report
    assert json.loads((market / "c.json").read_text(encoding="utf-8")) == report
    # The season is not trivial: decisions, fills, faults and ranks all occur.
    agents = {a["name"]: a for a in report["agents"]}
    codes = {e["reason_code"] for a in agents.values() for e in a["entries"]}
    assert {None, "provider_error", "timeout", "not_in_format"} <= codes
    assert agents["m_rotor"]["trades"] > 0
    assert agents["m_slow"]["trades"] > 0
    assert agents["m_rotor"]["rank"] is not None
    assert len(report["rounds"]) == 6
    assert asked == 6 * 5  # every model agent asked once a round, live
    # The replayed run records its own calls into --db, the same ones.
    assert _calls(market / "b.db") == _calls(market / "a.db")
    assert len(_calls(market / "a.db")) == asked


def _url(market: Path, name: str) -> str:
    return f"sqlite:///{market / f'{name}.db'}"


def test_weights_replay_answers_miss_is_an_error(shared_data: Path, tmp_path: Path) -> None:
    """C-5: a call the record does not hold stops the replay; it is never made live."""
    market = _market(shared_data, tmp_path)
    with _fake() as fake:
        assert _run(market, fake.url, "a.db", "a.json").exit_code == EXIT_NO_DECISIONS
        asked = len(fake.requests)
        extra = _run(
            market, fake.url, "d.db", "d.json",
            "--agent", f"newcomer=openai:rotor@{fake.url}", "--replay-answers", _url(market, "a"),
        )  # fmt: skip
        other = _run(
            market, fake.url, "e.db", "e.json",
            "--season", "another", "--replay-answers", _url(market, "a"),
        )  # fmt: skip
        assert len(fake.requests) == asked
    assert isinstance(extra.exception, ConfigError)
    assert "replay cannot answer call" in str(extra.exception)
    assert "newcomer" in str(extra.exception)
    assert isinstance(other.exception, ConfigError)
    assert "no weights season 'another'" in str(other.exception)
    assert not (market / "d.json").exists()


def test_weights_default_season_id_names_bars_days_and_division() -> None:
    """C-5: the default season id is what ``--replay-answers`` looks the calls up by."""
    made = replay_season_id("bars", date(2026, 7, 6), date(2026, 7, 14), Division.PRO)
    assert made == "replay-bars-2026-07-06-2026-07-14-pro"
