"""A replay-clock host over a full trading day plays exactly the slots the schedules name.

Weights (Open and Pro) at 15..19 UTC and the direction arena every five
minutes, over the shared data; ``tradeleague report`` of each season equals
the REPORT.json the matching replay writes over the same data and roster.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from host_helpers import replay_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import EventKind
from tradeleague.store import open_store, verify

DAY = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z"]


def _weights_replay_report(data: Path, tmp_path: Path) -> str:
    """`replay weights --out` over the same bars, days and roster, Pro agents by ``--pro``."""
    out = tmp_path / "weights-replay.json"
    result = CliRunner().invoke(app, [
        "replay", "weights", "--market", str(data / "us_equities_1h"),
        "--symbols", "AAPL,MSFT,NVDA", "--start", "2025-09-02", "--end", "2025-09-03",
        "--agent", "equal=baseline:equal_weight", "--agent", "momentum=baseline:momentum",
        "--pro", "momentum", "--season", "W1",
        "--db", f"sqlite:///{tmp_path / 'weights-replay.db'}", "--out", str(out),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "open division" in result.output
    assert "pro division" in result.output  # both tables of the mixed season
    return out.read_text(encoding="utf-8")


def test_host_replay_day_plays_the_schedules_and_reports_as_the_replays(
    shared_data: Path, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'host.db'}"
    league = replay_league(tmp_path / "league.toml", shared_data, db)
    runner = CliRunner()
    result = runner.invoke(app, ["run", "--config", str(league), "--clock", "replay", *DAY])
    assert result.exit_code == 0, result.output

    with open_store(db) as store:
        weights = [
            str(s.event.payload["round"])
            for s in store.events("weights/W1")
            if s.event.kind == EventKind.ROUND_STARTED
        ]
        direction = [
            s.event.payload["round"]
            for s in store.events("direction")
            if s.event.kind == EventKind.ROUND_STARTED
        ]
        assert verify(store).ok
    assert [datetime.fromisoformat(r.replace("Z", "+00:00")).hour for r in weights] == [
        15, 16, 17, 18, 19,
    ]  # fmt: skip
    assert len(direction) == 288 == len(set(direction))

    # Run again: everything is recorded, nothing is played twice.
    again = runner.invoke(app, ["run", "--config", str(league), "--clock", "replay", *DAY])
    assert again.exit_code == 0, again.output
    with open_store(db) as store:
        assert (
            sum(1 for s in store.events("direction") if s.event.kind == EventKind.ROUND_STARTED)
            == 288
        )

    # The weights season's report equals the replay's.
    out = tmp_path / "weights.json"
    result = runner.invoke(app, ["report", "--db", db, "--season", "W1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == _weights_replay_report(shared_data, tmp_path)

    # The arena's season equals `replay direction` over the same span and roster.
    replayed = tmp_path / "direction-replay.json"
    result = runner.invoke(app, [
        "replay", "direction", "--market", str(shared_data / "crypto_1m"),
        "--agent", "up=baseline:up", "--agent", "momentum=baseline:momentum",
        "--start", "2025-09-02T00:00Z", "--end", "2025-09-03T00:00Z",
        "--db", f"sqlite:///{tmp_path / 'direction-replay.db'}", "--out", str(replayed),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    hosted = tmp_path / "direction.json"
    result = runner.invoke(app, ["report", "--config", str(league), "--season", "S1", "--out",
                                 str(hosted)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert hosted.read_bytes() == replayed.read_bytes()

    status = runner.invoke(app, ["status", "--db", db, "--json"])
    assert status.exit_code == 0, status.output
    body = json.loads(status.stdout)
    by_format = {f["format"]: f for f in body["formats"]}
    assert by_format["weights"]["last_slot"] == "2025-09-02T19:00:00.000000Z"
    assert by_format["direction"]["last_slot"] == "2025-09-02T23:55:00.000000Z"
    assert by_format["weights"]["missed"] == by_format["direction"]["missed"] == []
    # Issue 30 item 4: the next slot in the clock the day was played under (replay time).
    assert by_format["direction"]["clock"] == by_format["weights"]["clock"] == "replay"
    assert by_format["direction"]["next_slot"] == "2025-09-03T00:00:00.000000Z"
    assert by_format["weights"]["next_slot"] is None  # W1 ends with the day
    assert set(by_format["weights"]) >= {"format", "season", "last_slot", "next_slot", "missed",
                                         "paused", "feeds"}  # fmt: skip
