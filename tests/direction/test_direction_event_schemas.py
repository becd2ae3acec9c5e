"""An arena's log against the event vocabulary, and a store written in the old shapes.

Names: C-4 (every event of a replayed arena validates against its kind's payload
schema), C-5 (a store whose ``ModelCalled`` events hold the arena's unversioned
``{"season", "round", "agent", "record"}`` still verifies, answers a
``--replay-answers FROM_DB`` replay with the identical board, and folds the same
model log, D-PUB-1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_direction_replay_answers import _fake, _run  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import Event, EventKind, check_events
from tradeleague.league.direction.replay import load_ledger
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS


def _old_shape(payload: dict[str, Any]) -> dict[str, Any]:
    """Return a ``ModelCalled`` payload as the arena wrote it before version 2."""
    return {k: v for k, v in payload.items() if k != "v"}


def _copy_as_old(source: Path, target: Path) -> int:
    with open_store(f"sqlite:///{source}", upgrade=False) as store:
        events = [s.event for s in store.events()]
    copied = [
        Event(
            e.stream,
            e.kind,
            _old_shape(e.payload) if e.kind == EventKind.MODEL_CALLED else e.payload,
            e.occurred_at,
            id=e.id,
        )
        for e in events
    ]
    with open_store(f"sqlite:///{target}") as store:
        store.append(copied)
    return sum(e.kind == EventKind.MODEL_CALLED for e in copied)


def _calls(url: str) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    with open_store(url, upgrade=False) as store:
        ledger = load_ledger(store)
    return {
        (season.season, rid, agent): calls
        for season in ledger.seasons.values()
        for rid, view in season.rounds.items()
        for agent, calls in view.calls.items()
    }


def test_direction_arena_events_match_their_schemas(shared_data: Path, tmp_path: Path) -> None:
    """C-4: every event an arena with model calls, faults and settlements writes validates."""
    with _fake() as fake:
        assert (
            _run(shared_data / "crypto_1m", tmp_path, fake.url, "a").exit_code == EXIT_NO_DECISIONS
        )
    with open_store(f"sqlite:///{tmp_path / 'a.db'}", upgrade=False) as store:
        events = [s.event for s in store.events()]
    kinds = {e.kind for e in events}
    assert {EventKind.MODEL_CALLED, EventKind.DECISION_MADE, EventKind.TURN_SKIPPED} <= kinds
    assert {EventKind.TRADE_SETTLED, EventKind.SEASON_STARTED, "TradePlaced"} <= kinds
    assert check_events(events, "direction") == []
    calls = [e.payload for e in events if e.kind == EventKind.MODEL_CALLED]
    assert all(set(p) == {"v", "season", "agent", "round", "record"} for p in calls)


def test_direction_store_in_the_old_shape_verifies_and_replays(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-5: an old-shape store verifies, replays to the same board and shows the same calls."""
    market = shared_data / "crypto_1m"
    old_url = f"sqlite:///{tmp_path / 'old.db'}"
    with _fake() as fake:
        assert _run(market, tmp_path, fake.url, "a").exit_code == EXIT_NO_DECISIONS
        asked = len(fake.requests)
        assert _copy_as_old(tmp_path / "a.db", tmp_path / "old.db") > 0
        verified = CliRunner().invoke(app, ["verify", "--db", old_url])
        assert verified.exit_code == 0, verified.output
        replayed = _run(market, tmp_path, fake.url, "b", "--replay-answers", old_url)
        assert replayed.exit_code == EXIT_NO_DECISIONS, replayed.output
        assert len(fake.requests) == asked  # every answer came from the old store
    report = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert json.loads((tmp_path / "b.json").read_text(encoding="utf-8")) == report
    shown = _calls(f"sqlite:///{tmp_path / 'a.db'}")
    assert shown
    assert _calls(old_url) == shown
