"""``tradeleague status`` lists the arena once, not each round's visitors' stream beside it.

The site writes a visitor's call to ``{stream}/visitors/{round}``; that stream
is an input of the arena's round, not an arena of its own.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from host_helpers import replay_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events.direction import visitors_stream
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import round_times
from tradeleague.league.direction.visitors import record_call
from tradeleague.store import open_store


def test_status_lists_the_arena_and_not_its_visitors_streams(
    shared_data: Path, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'host.db'}"
    league = replay_league(tmp_path / "league.toml", shared_data, db)
    runner = CliRunner()
    span = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-02T00:10Z"]
    result = runner.invoke(app, ["run", "--config", str(league), "--clock", "replay", *span])
    assert result.exit_code == 0, result.output
    opened = datetime(2025, 9, 2, 0, 10, tzinfo=UTC)  # the next round: a visitor calls it
    preset = DirectionPreset()
    with open_store(db) as store:
        call = record_call(
            store, stream="direction", times=round_times(opened, preset), preset=preset,
            visitor="ann", direction="up", at=opened + timedelta(seconds=5),
        )  # fmt: skip
        stream = visitors_stream("direction", call.round)
        assert [s.event.stream for s in store.events(stream)] == [stream]

    for where in (["--db", db], ["--config", str(league)]):
        shown = runner.invoke(app, ["status", *where, "--json"])
        assert shown.exit_code == 0, shown.output
        arenas = [f for f in json.loads(shown.stdout)["formats"] if f["format"] == "direction"]
        assert [(a["stream"], a["season"]) for a in arenas] == [("direction", "S1")], where
        assert arenas[0]["last_slot"] == "2025-09-02T00:05:00.000000Z"
    text = runner.invoke(app, ["status", "--db", db])
    assert text.exit_code == 0, text.output
    summaries = [line for line in text.stdout.splitlines() if not line.startswith(" ")]
    assert [line.split(":")[0] for line in summaries] == ["direction S1"]
    agents = [line.split(":")[0].strip() for line in text.stdout.splitlines() if line[:1] == " "]
    assert agents == ["up", "momentum"]  # each agent's valid-answer rate under its season
