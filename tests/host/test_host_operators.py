"""Operators see agents: /metrics per agent, warnings past thresholds, status rates, boards.

A replay-clock host plays a weights day (five round hours) with a baseline and
a Pro agent whose model answers every round, but never in the format; the
provider is the fake OpenAI-compatible server on a loopback port.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from host_helpers import weights_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import Event, EventKind
from tradeleague.host.config import load_league
from tradeleague.host.host import HostOptions, run_host
from tradeleague.host.metrics import Metrics
from tradeleague.host.watch import crossed
from tradeleague.plugin import get
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour

PROSE = "The JSON object is: AAPL 50%, MSFT 50%."
"""An answer, but not in the format: refused by validation (not_in_format)."""
DAY = (datetime(2025, 9, 2, tzinfo=UTC), datetime(2025, 9, 3, tzinfo=UTC))


def _league(tmp_path: Path, data: Path, url: str) -> Path:
    db = f"sqlite:///{tmp_path / 'host.db'}"
    path = tmp_path / "league.toml"
    agents = [("equal", "baseline:equal_weight", "open"), ("m", f"openai:prose@{url}", "pro")]
    path.write_text(weights_league(data, db, agents, end="2025-09-10"), encoding="utf-8")
    return path


def _warnings(caplog: pytest.LogCaptureFixture, message: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == message]


def test_host_day_metrics_have_per_agent_series_and_status_rates(
    shared_data: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 25 item 7: /metrics after a host day has per-agent series; status has rates."""
    caplog.set_level(logging.DEBUG, logger="tradeleague")
    metrics = Metrics()
    with FakeProvider() as fake:
        fake.script_model("prose", Behaviour(text=PROSE))
        league = _league(tmp_path, shared_data, fake.url)
        run = run_host(load_league(league), HostOptions(replay=True, start=DAY[0], end=DAY[1]),
                       metrics)  # fmt: skip
    assert run.rounds == 5
    assert run.played == {"weights": ["W1"]}

    text = metrics.render().decode()
    calls = re.findall(r"tradeleague_model_calls_total\{([^}]*)\} (\S+)", text)
    series = {labels: float(n) for labels, n in calls}
    (labels,) = series  # the baseline calls no model: one series, the model agent's
    assert 'agent="m"' in labels
    assert 'format="weights"' in labels
    assert 'outcome="answered"' in labels  # it answered: the refusal is validation's
    assert re.search(r'provider="[^"]+"', labels)
    assert series[labels] == 5.0
    assert re.search(r'tradeleague_model_call_latency_seconds_count\{agent="m",[^}]*\} 5\.0', text)

    # Five turns without a valid answer: one warning, at the threshold, not one a round.
    (warned,) = _warnings(caplog, "agent faults passed a threshold")
    assert warned.levelno == logging.WARNING
    assert (warned.__dict__["agent"], warned.__dict__["faults"]) == ("m", 5)
    assert warned.__dict__["season"] == "W1"
    assert "not_in_format 5" in warned.__dict__["causes"]
    played = _warnings(caplog, "round played")
    assert len(played) == 5
    assert {r.levelno for r in played} == {logging.DEBUG}  # under replay: not noise at info

    status = CliRunner().invoke(app, ["status", "--config", str(league), "--json"])
    assert status.exit_code == 0, status.output
    (entry,) = json.loads(status.stdout)["formats"]
    rates = {a["agent"]: a for a in entry["agents"]}
    assert rates["m"] == {"agent": "m", "turns": 5, "valid": 0, "valid_rate": 0.0,
                          "last_outcome": "not_in_format"}  # fmt: skip
    assert rates["equal"]["valid_rate"] == 1.0
    assert rates["equal"]["last_outcome"] == "valid"
    # Under the replay clock the next slot is the next round hour in replay time.
    assert entry["clock"] == "replay"
    assert entry["last_slot"] == "2025-09-02T19:00:00.000000Z"
    assert entry["next_slot"] == "2025-09-03T15:00:00.000000Z"

    words = CliRunner().invoke(app, ["status", "--config", str(league)])
    assert words.exit_code == 0, words.output
    assert "next 2025-09-03T15:00:00.000000Z (replay time)" in words.stdout
    assert "m: 0 of 5 turns valid (0.00%) (never a valid answer), last not_in_format" in (
        words.stdout
    )
    assert "equal: 1 of 1 turns valid (100.00%), last valid" in words.stdout


def test_host_warns_once_per_threshold_and_counts_the_season_on_restart(
    shared_data: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A host that starts again counts the season's earlier faults: 5 is not warned twice."""
    caplog.set_level(logging.INFO, logger="tradeleague")
    with FakeProvider() as fake:
        fake.script_model("prose", Behaviour(text=PROSE))
        league = load_league(_league(tmp_path, shared_data, fake.url))
        first = (datetime(2025, 9, 2, tzinfo=UTC), datetime(2025, 9, 2, 18, tzinfo=UTC))
        run_host(league, HostOptions(replay=True, start=first[0], end=first[1]))  # 3 faults
        assert not _warnings(caplog, "agent faults passed a threshold")
        second = (first[0], datetime(2025, 9, 4, tzinfo=UTC))
        run_host(league, HostOptions(replay=True, start=second[0], end=second[1]))  # 7 more
    warned = _warnings(caplog, "agent faults passed a threshold")
    assert [(r.__dict__["faults"], r.__dict__["threshold"]) for r in warned] == [(5, 5), (10, 10)]


def test_fault_thresholds_are_crossed_once() -> None:
    assert crossed(0, 4) is None
    assert crossed(4, 5) == 5
    assert crossed(5, 9) is None
    assert crossed(9, 10) == 10
    assert crossed(3, 25) == 20  # one round past two thresholds: one warning, the higher
    assert crossed(40, 80) == 80


def _event(kind: str, payload: dict[str, object]) -> Event:
    return Event("weights/W1", kind, payload, DAY[0])


def test_feed_faults_come_from_each_format_part() -> None:
    """Each format's host part names the feeds a round shows stale; None when it read none."""
    weights = get("weights").part("host")
    started = _event(EventKind.ROUND_STARTED, {"round": "r", "halted": {
        "AAPL": ["stale_feed"], "MSFT": ["on_hold"]}})  # fmt: skip
    assert weights.feed_faults([started]) == ["AAPL: stale_feed"]  # a hold is not a feed's fault
    closed = _event("MarketClosed", {"round": "r", "reasons": ["no_recent_update"], "invalid": {}})
    assert weights.feed_faults([closed]) is None  # a weekend: nothing known of the feeds
    stale_node = _event("MarketClosed", {"round": "r", "reasons": ["node_stale"], "invalid": {}})
    assert weights.feed_faults([stale_node]) == ["node: node_stale"]
    direction = get("direction").part("host")
    opened = Event("direction", EventKind.ROUND_STARTED, {"season": "S1", "symbol": "BTC/USDT"},
                   DAY[0])  # fmt: skip
    void = Event("direction", "RoundVoided", {"season": "S1", "reason": "no_market_data"}, DAY[0])
    assert direction.feed_faults([opened, void]) == ["BTC/USDT: no_market_data"]
    assert direction.feed_faults([opened]) == []
    thesis = get("thesis").part("host")
    cycle = Event("thesis/T1", EventKind.ROUND_STARTED, {"prices": {}}, DAY[0])
    assert thesis.feed_faults([cycle]) == ["prices: none read"]


def test_host_warns_when_a_feed_goes_stale_and_when_it_is_fresh(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Once when it goes stale (not every round it stays so), once when it is fresh again."""
    from tradeleague.host.watch import Watch

    caplog.set_level(logging.INFO, logger="tradeleague")

    class _Store:
        def events(self, stream: str) -> list[object]:
            return []

    class _Driver:
        fmt, season, stream, since = "weights", "W1", "weights/W1", None

        def season_of(self, slot: datetime) -> str:
            return "W1"

    watch = Watch(_Store(), Metrics())  # type: ignore[arg-type]
    stale = _event(EventKind.ROUND_STARTED, {"round": "r", "halted": {"AAPL": ["stale_feed"]}})
    fresh = _event(EventKind.ROUND_STARTED, {"round": "r", "halted": {}})
    for events in ([stale], [stale], [stale], [fresh], [fresh]):
        watch.round(_Driver(), DAY[0], events, 0)  # type: ignore[arg-type]
    (went,) = _warnings(caplog, "feed stale or unreadable")
    assert went.__dict__["feed"] == "AAPL: stale_feed"
    (back,) = _warnings(caplog, "feed fresh again")
    assert back.levelno == logging.INFO


def test_host_replay_run_ends_with_the_boards_it_played(shared_data: Path, tmp_path: Path) -> None:
    """Issue 30 item 4: a replay-clock run prints each season's board, as the replay does."""
    with FakeProvider() as fake:
        fake.script_model("prose", Behaviour(text=PROSE))
        league = _league(tmp_path, shared_data, fake.url)
        result = CliRunner().invoke(app, [
            "run", "--config", str(league), "--clock", "replay",
            "--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z",
        ])  # fmt: skip
        assert result.exit_code == 0, result.output
        again = CliRunner().invoke(app, [
            "run", "--config", str(league), "--clock", "replay",
            "--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z",
        ])  # fmt: skip
    out = result.stdout
    assert "Played 5 rounds." in out
    assert "Weights league, open division: season W1" in out
    assert "Weights league, pro division: season W1" in out
    assert "m: decisions 0; no decision: not_in_format 5" in out  # the replay's summary
    assert again.exit_code == 0, again.output
    assert "Played 0 rounds." in again.stdout  # all recorded: nothing played, no board
    assert "Weights league" not in again.stdout


def test_overlapping_rounds_take_in_each_event_once(tmp_path: Path) -> None:
    """Live arena rounds overlap: what two rounds read back is counted once, not twice."""
    from tradeleague.host.watch import Watch
    from tradeleague.store import open_store

    with open_store(f"sqlite:///{tmp_path / 'w.db'}") as store:
        watch = Watch(store, Metrics())
        first_started = store.head().seq
        store.append([Event("direction", "RoundStarted", {"round": "a"}, DAY[0])])
        second_started = store.head().seq
        store.append([Event("direction", "RoundStarted", {"round": "b"}, DAY[0])])
        first = watch.read_back("direction", first_started)  # round a ends: b's start is there
        store.append([Event("direction", "RoundFinished", {"round": "b"}, DAY[0])])
        second = watch.read_back("direction", second_started)
    assert [e.payload["round"] for e in first] == ["a", "b"]
    assert [(e.kind, e.payload["round"]) for e in second] == [("RoundFinished", "b")]
