"""A weights season's log against the event vocabulary, and a store written in the old shapes.

Names: C-4 (every event of a season validates against its kind's payload schema),
C-5 (a store whose ``ModelCalled`` events hold the weights league's first shape,
the call record flat beside ``agent``, still verifies and still answers a
``--replay-answers FROM_DB`` replay with the identical REPORT.json).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_weights_replay_answers import _fake, _market, _run, _url  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import Event, EventKind, check_events
from tradeleague.events.common import model_called_record
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS


def _old_shape(payload: dict[str, Any]) -> dict[str, Any]:
    """Return a ``ModelCalled`` payload as the weights league wrote it before version 2."""
    return {**model_called_record(payload), "agent": payload["agent"]}


def _copy_as_old(source: Path, target: Path) -> int:
    """Copy every event of ``source`` into a new store, ModelCalled in the old shape."""
    rewritten = 0
    with open_store(f"sqlite:///{source}", upgrade=False) as store:
        events = [s.event for s in store.events()]
    copied: list[Event] = []
    for e in events:
        payload = e.payload
        if e.kind == EventKind.MODEL_CALLED:
            payload = _old_shape(payload)
            rewritten += 1
        copied.append(Event(e.stream, e.kind, payload, e.occurred_at, id=e.id))
    with open_store(f"sqlite:///{target}") as store:
        store.append(copied)
    return rewritten


def test_weights_season_events_match_their_schemas(shared_data: Path, tmp_path: Path) -> None:
    """C-4: every event a season with model calls, faults and fills writes validates."""
    market = _market(shared_data, tmp_path)
    with _fake() as fake:
        assert _run(market, fake.url, "a.db", "a.json").exit_code == EXIT_NO_DECISIONS
    with open_store(_url(market, "a"), upgrade=False) as store:
        events = [s.event for s in store.events()]
    kinds = {e.kind for e in events}
    assert {EventKind.MODEL_CALLED, EventKind.DECISION_MADE, EventKind.NO_DECISION_MADE} <= kinds
    assert {EventKind.ORDER_FILLED, EventKind.PRICE_READ, EventKind.ROUND_FINISHED} <= kinds
    assert check_events(events, "weights") == []
    calls = [e.payload for e in events if e.kind == EventKind.MODEL_CALLED]
    assert all(set(p) == {"v", "agent", "round", "record"} and p["v"] == 2 for p in calls)


def test_weights_store_in_the_old_shape_verifies_and_replays(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-5: an old-shape store verifies, and --replay-answers from it gives the same report."""
    market = _market(shared_data, tmp_path)
    with _fake() as fake:
        assert _run(market, fake.url, "a.db", "a.json").exit_code == EXIT_NO_DECISIONS
        asked = len(fake.requests)
        assert _copy_as_old(market / "a.db", market / "old.db") > 0
        verified = CliRunner().invoke(app, ["verify", "--db", _url(market, "old")])
        assert verified.exit_code == 0, verified.output
        replayed = _run(market, fake.url, "b.db", "b.json", "--replay-answers", _url(market, "old"))
        assert replayed.exit_code == EXIT_NO_DECISIONS, replayed.output
        assert len(fake.requests) == asked  # every answer came from the old store
    report = json.loads((market / "a.json").read_text(encoding="utf-8"))
    assert json.loads((market / "b.json").read_text(encoding="utf-8")) == report
    with open_store(_url(market, "old"), upgrade=False) as store:
        old = [s.event for s in store.events() if s.event.kind == EventKind.MODEL_CALLED]
    assert old
    assert all("key" in e.payload and "record" not in e.payload for e in old)
    assert check_events(old, "weights") == []  # upcast before it is checked
