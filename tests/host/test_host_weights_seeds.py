"""A hosted weights season's seeded baselines draw as its replay's (issue 16's seed rule).

Every seeded baseline derives its seed from its season and its name
(`agents.seeds.agent_seed`): two coin flips of one season draw apart, and a
replay-clock host of a season writes the decisions `replay weights` of the same
season, bars and roster writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from host_helpers import weights_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import EventKind
from tradeleague.store import open_store, verify

SYMBOLS = ["AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META"]
AGENTS = ["flip-a=baseline:coin_flip", "flip-b=baseline:coin_flip"]


def _league(path: Path, data: Path, db: str) -> Path:
    agents = [(a.split("=")[0], a.split("=")[1], "open") for a in AGENTS]
    path.write_text(
        weights_league(data, db, agents, end="2025-09-04", symbols=SYMBOLS), encoding="utf-8"
    )
    return path


def _targets(db: str) -> dict[str, list[Any]]:
    """Each agent's decided targets, round by round."""
    out: dict[str, list[Any]] = {}
    with open_store(db) as store:
        assert verify(store).ok
        for stored in store.events("weights/W1"):
            event = stored.event
            if event.kind == EventKind.DECISION_MADE:
                agent = str(event.payload["agent"])
                out.setdefault(agent, []).append(event.payload["targets"])
    return out


def test_hosted_coin_flips_draw_from_season_and_name_as_the_replay(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 16 seeds: a hosted season's coin flips equal `replay weights` of the same season."""
    runner = CliRunner()
    hosted_db = f"sqlite:///{tmp_path / 'host.db'}"
    league = _league(tmp_path / "league.toml", shared_data, hosted_db)
    span = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-04T00:00Z"]
    result = runner.invoke(app, ["run", "--config", str(league), "--clock", "replay", *span])
    assert result.exit_code == 0, result.output

    replay_db = f"sqlite:///{tmp_path / 'replay.db'}"
    agent_args = [arg for a in AGENTS for arg in ("--agent", a)]
    result = runner.invoke(app, [
        "replay", "weights", "--market", str(shared_data / "us_equities_1h"), *agent_args,
        "--symbols", ",".join(SYMBOLS), "--start", "2025-09-02", "--end", "2025-09-04",
        "--season", "W1", "--db", replay_db,
    ])  # fmt: skip
    assert result.exit_code == 0, result.output

    hosted, replayed = _targets(hosted_db), _targets(replay_db)
    assert sorted(hosted) == ["flip-a", "flip-b"]
    assert len(hosted["flip-a"]) == 2  # Open: one turn per trading day (W-DIV-1)
    assert hosted["flip-a"] != hosted["flip-b"], "two names draw two streams"
    assert hosted == replayed, "the host derives each seed as the replay does"
