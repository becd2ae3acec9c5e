"""``tradeleague replay direction --replay-answers FROM_DB``: an arena re-run from its record.

Names: C-5 (every call recorded; a replay from the recorded answers gives identical
decisions, trades, settlements and board rows, and calls no model), D-RND-3 (the
recorded latencies decide the window in the replay as they did live).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest
from tradeleague.testing.fake_script import Behaviour, Fault

KINDS = (
    EventKind.MODEL_CALLED,
    EventKind.DECISION_MADE,
    EventKind.TRADE_SETTLED,
    EventKind.TURN_SKIPPED,
    EventKind.ROUND_FINISHED,
)


def _fake() -> FakeProvider:
    fake = FakeProvider()
    turns = {"n": 0}

    def seesaw(_request: ReceivedRequest) -> str:
        turns["n"] += 1
        direction = ("up", "down", "down")[turns["n"] % 3]
        return json.dumps({"direction": direction, "rationale": f"Turn {turns['n']}."})

    fake.respond_with("seesaw", seesaw)
    fake.script_model("broken", Behaviour(fault=Fault.SERVER_ERROR))
    slow = json.dumps({"direction": "up", "rationale": "Slowly."})
    fake.script_model("slow", Behaviour(text=slow, latency_s=0.2))
    fake.enqueue("chatty", "Up, probably.", Behaviour(fault=Fault.RATE_LIMITED))
    fake.script_model("chatty", Behaviour(text=slow, fault=Fault.PROSE))
    return fake


def _run(market: Path, tmp: Path, url: str, db: str, *extra: str) -> Any:
    specs = [f"m_{n}=openai:{n}@{url},tier=T" for n in ("seesaw", "broken", "slow", "chatty")]
    specs.append("bull=baseline:up,provider=house")
    args = [
        "replay", "direction", "--market", str(market),
        "--start", "2025-09-01T06:00:00Z", "--end", "2025-09-01T06:40:00Z", "--no-check",
        "--db", f"sqlite:///{tmp / db}.db", "--out", str(tmp / f"{db}.json"),
        *[part for spec in specs for part in ("--agent", spec)], *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-test", "COLUMNS": "200"})


def _events(path: Path) -> list[tuple[str, dict[str, Any]]]:
    with open_store(f"sqlite:///{path}", upgrade=False) as store:
        return [
            (s.event.kind, dict(s.event.payload)) for s in store.events() if s.event.kind in KINDS
        ]


def test_direction_replay_answers_reproduce_the_board(shared_data: Path, tmp_path: Path) -> None:
    """C-5, D-RND-3: the replayed REPORT.json (board rows too) equals the live one; no call."""
    market = shared_data / "crypto_1m"
    source = f"sqlite:///{tmp_path / 'a.db'}"
    with _fake() as fake:
        url = fake.url
        live = _run(market, tmp_path, url, "a")
        # m_broken never decides (HTTP 500 every call): the replay says so and exits 3.
        assert live.exit_code == EXIT_NO_DECISIONS, live.output
        asked = len(fake.requests)
        up = _run(market, tmp_path, url, "b", "--replay-answers", source)
        assert up.exit_code == EXIT_NO_DECISIONS, up.output
        assert len(fake.requests) == asked  # the server was up, and got nothing
    down = _run(market, tmp_path, url, "c", "--replay-answers", source)
    assert down.exit_code == EXIT_NO_DECISIONS, down.output

    report = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert json.loads((tmp_path / "b.json").read_text(encoding="utf-8")) == report
    assert json.loads((tmp_path / "c.json").read_text(encoding="utf-8")) == report
    assert _events(tmp_path / "b.db") == _events(tmp_path / "a.db")
    assert _events(tmp_path / "c.db") == _events(tmp_path / "a.db")
    # Not a trivial season: trades settle, faults skip, ranks spread.
    assert report["rounds"] == 8
    assert asked == 8 * 4
    models = {m["name"]: m for m in report["models"]}
    assert models["m_seesaw"]["settled"] == 8
    assert models["m_slow"]["settled"] == 8
    assert models["m_broken"]["settled"] == 0
    assert models["m_chatty"]["skips"]
    # ours: the model that never settled a trade is listed last, unranked, with its reason
    assert [m["rank"] for m in report["models"]] == [1, 2, 3, 4, None]
    assert report["models"][-1]["name"] == "m_broken"
    assert report["models"][-1]["unranked_reason"] == "no_settled_trade"


def test_direction_replay_answers_miss_is_an_error(shared_data: Path, tmp_path: Path) -> None:
    """C-5: a call the record lacks stops the replay; nothing is sent to the provider."""
    market = shared_data / "crypto_1m"
    source = f"sqlite:///{tmp_path / 'a.db'}"
    with _fake() as fake:
        assert _run(market, tmp_path, fake.url, "a").exit_code == EXIT_NO_DECISIONS
        asked = len(fake.requests)
        extra = _run(
            market, tmp_path, fake.url, "d",
            "--agent", f"late=openai:seesaw@{fake.url}", "--replay-answers", source,
        )  # fmt: skip
        other = _run(
            market, tmp_path, fake.url, "e", "--stream", "other", "--replay-answers", source
        )
        assert len(fake.requests) == asked
    assert isinstance(extra.exception, ConfigError)
    assert "replay cannot answer call S1/" in str(extra.exception)
    assert "/late/0" in str(extra.exception)
    assert isinstance(other.exception, ConfigError)
    assert "no direction stream 'other'" in str(other.exception)
