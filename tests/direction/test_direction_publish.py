"""Publication: hidden calls, visitors, roster, logs, seasons, JSON endpoints (D-PUB, D-SEA-1)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

from direction_helpers import START, always, contestant  # type: ignore[import-not-found]
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tradeleague.agents.base import Turn
from tradeleague.broker import PaperBroker
from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import Event
from tradeleague.feeds.candles import FrozenCandles
from tradeleague.formats.direction import DirectionPreset
from tradeleague.league.direction import (
    Contestant,
    DirectionArena,
    load_ledger,
    replay_direction,
)
from tradeleague.league.direction.reads import direction_router
from tradeleague.league.pacing import ReplayPacing
from tradeleague.market import Dataset
from tradeleague.money import usd
from tradeleague.store import Store, open_store

HIDDEN = {"direction", "rationale", "calls", "label", "result", "text", "tally", "up", "down"}


def _client(store: Store, clock: ReplayClock | None = None) -> TestClient:
    app = FastAPI()
    app.include_router(direction_router(store, clock=clock))
    return TestClient(app)


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _roster() -> list[Contestant]:
    return [
        contestant("alpha", always("up", 2_000), provider="anthropic", tier="TOP"),
        contestant("beta", always("down", 9_000), provider="openai", tier="ECO"),
    ]


async def test_direction_open_round_hides_every_call_in_every_payload(
    store: Store, synthetic_btc: Dataset, tmp_path: Any
) -> None:
    """D-PUB-1: while a round is open no payload has a direction, rationale or tally."""
    await replay_direction(
        store, synthetic_btc, _roster(), start=START, end=START + timedelta(minutes=10)
    )
    events = [s.event for s in store.events("direction")]
    second = events[-1].payload["round"]
    cut = next(
        i for i, e in enumerate(events) if e.kind == "TradeSettled" and e.payload["round"] == second
    )
    with open_store(f"sqlite:///{tmp_path / 'open.db'}") as partial:
        partial.append(
            Event(e.stream, e.kind, e.payload, e.occurred_at, e.id) for e in events[:cut]
        )
        client = _client(partial)
        current = client.get("/direction/rounds/current").json()
        assert current["round"] == second
        assert current["status"] == "open"
        assert current["committed"] == 2
        for node in _walk(current):
            if isinstance(node, dict):
                assert not HIDDEN & set(node), node.keys()
            assert node not in ("up", "down")
        paths = [
            "/direction",
            "/direction/rounds",
            f"/direction/rounds/{second}",
            "/direction/models/alpha/log",
            "/direction/models/beta/log",
            "/direction/config",
            "/direction/boards",
            "/direction/changelog",
        ]
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, path
            body = response.json()
            assert body["disclaimer"] == DISCLAIMER
            for node in _walk(body):
                if isinstance(node, dict) and node.get("round") == second:
                    assert not HIDDEN & set(node), (path, node.keys())
        board = client.get("/direction/boards").json()
        assert board["rounds"] == 1
        assert {r["settled"] for r in board["models"]} == {1}
        logs = client.get("/direction/models/alpha/log").json()["rows"]
        assert [r["round"] for r in logs] == [events[1].payload["round"]]


async def test_direction_visitor_call_scored_beside_ranked_apart(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-PUB-2: a visitor's call is logged and settled like a model's, on its own board."""
    clock = ReplayClock(START)
    candles = FrozenCandles(synthetic_btc, clock)
    box: list[DirectionArena] = []

    def play(turn: Turn) -> tuple[Outcome, str, int]:
        box[0].visitor_call("ann", "down")
        return Outcome.ANSWERED, '{"direction": "up", "rationale": "r"}', 3_000

    arena = DirectionArena(
        store=store,
        roster=[contestant("alpha", play)],
        candles=candles,
        broker=PaperBroker(candles),
        clock=clock,
        pacing=ReplayPacing(clock),
    )
    box.append(arena)
    client = _client(store, clock)
    refused = client.post(
        "/direction/rounds/current/calls", json={"visitor": "bob", "direction": "up"}
    )
    assert refused.status_code == 409  # the arena has played no round yet
    assert refused.json()["error"]["code"] == "no_open_round"
    await arena.run_round(START)
    board = client.get("/direction/boards").json()
    assert [r["name"] for r in board["models"]] == ["alpha"]
    (ann,) = board["visitors"]
    assert ann["name"] == "visitor:ann"
    assert ann["settled"] == 1
    alpha = board["models"][0]
    assert {alpha["wins"], ann["wins"]} == {0, 1} or alpha["draws"] == ann["draws"] == 1
    log = client.get("/direction/models/visitor:ann/log").json()["rows"]
    assert log[0]["direction"] == "down"


async def test_direction_roster_and_full_log_are_public(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-PUB-3: exact provider model ids on the config endpoint; every column in the log."""
    await replay_direction(
        store, synthetic_btc, _roster(), start=START, end=START + timedelta(minutes=30)
    )
    client = _client(store)
    config = client.get("/direction/config").json()
    assert [m["model"] for m in config["roster"]] == ["anthropic/alpha", "openai/beta"]
    rows = client.get("/direction/models/beta/log").json()["rows"]
    assert len(rows) == 6
    columns = {
        "round", "timestamp", "direction", "entry_price", "exit_price", "result", "pnl",
        "balance_after", "rationale",
    }  # fmt: skip
    assert columns <= set(rows[0])
    rounds = client.get("/direction/rounds").json()["rounds"]
    assert len(rounds) == 6
    assert {c["model_id"] for c in rounds[0]["calls"]} == {None}
    assert {c["model"] for c in rounds[0]["calls"]} == {"alpha", "beta"}
    assert client.get("/direction/models/nobody/log").status_code == 404


async def test_direction_seasons_reset_end_early_and_are_kept(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-SEA-1, C-8: a season ends by length or under the floor; balances reset; past kept."""
    preset = replace(
        DirectionPreset(), stake=usd(50), start_balance=usd(240), season_length=timedelta(hours=1)
    )
    await replay_direction(
        store, synthetic_btc, _roster(), start=START, end=START + timedelta(hours=3), preset=preset
    )
    ledger = load_ledger(store)
    assert len(ledger.seasons) >= 3
    for view in ledger.seasons.values():
        first = view.finished_rounds()[0]
        assert first.finished is not None
        for balance in first.finished["balances"].values():
            assert abs(int(balance) - usd(240)) <= usd(50)
    ended = [v.ended["reason"] for v in ledger.seasons.values() if v.ended]
    assert set(ended) <= {"length", "floor"}
    assert "floor" in ended
    for view in list(ledger.seasons.values())[:-1]:
        assert view.ended is not None
        if view.ended["reason"] == "floor":
            assert min(int(b) for b in view.ended["balances"].values()) < usd(200)
        else:
            assert len(view.finished_rounds()) == 12
    changes = _client(store).get("/direction/changelog").json()["changes"]
    assert sum("opened" in c["change"] for c in changes) == len(ledger.seasons)
