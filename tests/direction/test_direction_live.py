"""A live round on the wall clock: ccxt candles, the real gateway, the paper broker.

Everything here is live: the round waits for its open on ``WallClock``; the
candles come through ``ccxt`` from a local server speaking Binance's klines
REST format, serving a synthetic minute series that runs up to the present
minute; the models are reached over HTTP through the ``Gateway`` and a
``FakeProvider`` whose scripted latencies produce one on-time answer, one
answer past the response window (``timeout``), one inside the window but too
close to expiry (``late``) and one unreadable answer (``invalid``). The clock
is shortened only through the preset (a 5 s drill round, a 2.5 s window, a
3.8 s late cutoff), so the code under test is the code that runs the seed's
five-minute rounds. Timing margins are generous: the fast models answer in
~0.05 s and ~0.3 s against a 1.2 s limit, the late one at 1.8 s against a
2.5 s window, the slow one never.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from typer.testing import CliRunner

from tradeleague.agents.llm import LlmAgent
from tradeleague.broker import PaperBroker
from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.feeds.candles.live import CcxtCandles
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.timing import round_id, round_opens
from tradeleague.league.direction import Contestant, DirectionArena
from tradeleague.league.direction.reads import direction_router
from tradeleague.league.pacing import LivePacing
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset as provider_preset
from tradeleague.store import Store
from tradeleague.testing.binance import live_klines_app
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour
from tradeleague.testing.server import serve_asgi

DRILL = DirectionPreset(
    round_length=timedelta(seconds=5),
    window=timedelta(seconds=2.5),
    late_cutoff=timedelta(seconds=3.8),
    settle_grace=timedelta(seconds=1),
    candles=30,
)
"""A 5 s round: an answer later than 1.2 s after the open is ``late``, after 2.5 s ``timeout``."""

HIDDEN = {"direction", "rationale", "calls", "label", "result", "text", "tally", "up", "down"}
UP = '{"direction": "up", "rationale": "The last candles rose."}'
DOWN = '{"direction": "down", "rationale": "Momentum is fading."}'
SCRIPT = {
    "fast": Behaviour(text=UP, latency_s=0.05),
    "steady": Behaviour(text=DOWN, latency_s=0.3),
    "slow": Behaviour(text=UP, latency_s=30.0),
    "late": Behaviour(text=DOWN, latency_s=1.8),
    "invalid": Behaviour(text="I'd rather not guess where the market goes.", latency_s=0.05),
}


@pytest.fixture
def exchange() -> Iterator[str]:
    with serve_asgi(live_klines_app()) as url:
        yield url


@pytest.fixture
async def gateway() -> AsyncIterator[tuple[Gateway, FakeProvider]]:
    async with FakeProvider() as fake:
        for model, behaviour in SCRIPT.items():
            fake.script_model(model, behaviour)
        provider = OpenAICompatProvider(
            provider_preset("openrouter").with_base_url(fake.url),
            environ={"OPENROUTER_API_KEY": "sk-live-test"},
        )
        async with Gateway([provider]) as gw:
            yield gw, fake


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _events(store: Store) -> list[tuple[str, dict[str, Any]]]:
    return [(s.event.kind, s.event.payload) for s in store.events("direction")]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def _public_while_open(client: httpx.AsyncClient, store: Store, rid: str) -> None:
    """D-PUB-1: poll until a trade is placed mid-round, then read every public payload."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        kinds = [(k, p.get("round")) for k, p in _events(store)]
        if ("RoundFinished", rid) in kinds:
            raise AssertionError("the round finished before a payload was read mid-round")
        if ("TradePlaced", rid) in kinds:
            break
        await asyncio.sleep(0.02)
    current = (await client.get("/direction/rounds/current")).json()
    placed = sum(1 for k, p in _events(store) if k == "TradePlaced")
    assert current["round"] == rid
    assert current["status"] == "open"
    assert 1 <= current["committed"] <= placed
    for node in _walk(current):
        if isinstance(node, dict):
            assert not HIDDEN & set(node), node.keys()
        assert node not in ("up", "down")
    for path in ("/direction/rounds", f"/direction/rounds/{rid}", "/direction/models/fast/log",
                 "/direction/boards", "/direction/config"):  # fmt: skip
        response = await client.get(path)
        assert response.status_code == 200, path
        for node in _walk(response.json()):
            if isinstance(node, dict) and node.get("round") == rid:
                assert not HIDDEN & set(node), (path, node.keys())
            assert node not in ("up", "down"), path


async def test_direction_live_round_on_the_wall_clock(
    store: Store, exchange: str, gateway: tuple[Gateway, FakeProvider]
) -> None:
    """D-RND-1..4, D-TRD-3, D-PUB-1, D-SKP-1: one live round, every fault in its place.

    The round opens on its grid instant; every model gets the call at once; the
    slow one is ``timeout`` while the others are placed within a second; the
    late one is ``late``; the unreadable one ``invalid``; every trade expires at
    the round's expiry; balances are the broker's own; and while the round is
    open no public payload names a direction, a rationale or a tally.
    """
    gw, fake = gateway
    clock = WallClock()
    candles = CcxtCandles.create(
        "binance", clock, {"BTCUSDT": "BTC/USDT"}, api_base=exchange,
        options={"fetchMarkets": {"types": ["spot"]}, "defaultType": "spot"},
    )  # fmt: skip
    broker = PaperBroker(candles)
    roster = [
        Contestant(
            entrant=Entrant(name=m, provider="openrouter", tier="TOP", model=m),
            agent=LlmAgent(name=m, model=m, provider="openrouter", gateway=gw),
        )
        for m in SCRIPT
    ]
    arena = DirectionArena(
        store=store, roster=roster, candles=candles, broker=broker, clock=clock,
        pacing=LivePacing(clock, poll=timedelta(milliseconds=200)), preset=DRILL,
    )  # fmt: skip
    app = FastAPI()
    app.include_router(direction_router(store, preset=DRILL))
    try:
        await candles.history("BTCUSDT", clock.now(), 2)  # load the exchange's markets once
        start = clock.now() + timedelta(seconds=0.5)
        (open_at,) = round_opens(start, start + DRILL.round_length, DRILL)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            running = asyncio.create_task(arena.run_round(open_at))
            await _public_while_open(client, store, round_id(open_at))
            rid = await running
    finally:
        await candles.aclose()

    events = _events(store)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for kind, payload in events:
        by_kind.setdefault(kind, []).append(payload)
    (started,) = by_kind["RoundStarted"]
    assert started["round"] == rid
    # D-RND-1: the round opened on its grid instant; the call went out at once.
    assert _at(started["open_at"]) == open_at
    assert _at(started["expiry"]) == open_at + DRILL.round_length
    ask_at = _at(started["ask_at"])
    assert timedelta(0) <= ask_at - open_at < timedelta(seconds=1)
    assert started["entry_price"] is not None
    assert len(started["candles"]) == DRILL.candles
    # D-RND-2: one identical request to every model.
    requests = fake.requests
    assert sorted(r.model for r in requests) == sorted(SCRIPT)
    assert len({(r.messages, r.body["temperature"], r.body["max_tokens"]) for r in requests}) == 1
    skips = {p["agent"]: p for p in by_kind["TurnSkipped"] if p["reason"] != "unsettled"}
    assert {a: p["reason"] for a, p in skips.items()} == {
        "slow": "timeout", "late": "late", "invalid": "invalid",
    }  # fmt: skip
    # D-RND-3: the slow model is out; the others were not held up by it.
    decisions = {p["agent"]: p for p in by_kind["DecisionMade"]}
    assert "slow" not in decisions
    for fast in ("fast", "steady"):
        assert _at(decisions[fast]["answered_at"]) - ask_at < timedelta(seconds=1.2)
    # D-RND-4: the late answer was read (inside the window) but not placed.
    assert decisions["late"]["latency_ms"] <= DRILL.window / timedelta(milliseconds=1)
    left = _at(started["expiry"]) - _at(decisions["late"]["answered_at"])
    assert left < DRILL.late_cutoff
    # D-RND-2: every trade of the round expires at the same second, its duration
    # computed when it was placed.
    placed = {p["agent"]: p for p in by_kind["TradePlaced"]}
    assert set(placed) == {"fast", "steady"}
    assert {p["expiry"] for p in placed.values()} == {started["expiry"]}
    for p in placed.values():
        assert _at(p["placed_at"]) + timedelta(milliseconds=p["duration_ms"]) <= _at(p["expiry"])
        assert _at(p["expiry"]) - _at(p["placed_at"]) < timedelta(milliseconds=p["duration_ms"] + 1)
    assert placed["fast"]["duration_ms"] > placed["steady"]["duration_ms"]
    # D-TRD-3, D-SKP-1: each trade ends with the broker's close event or, without
    # one by the grace, as ``unsettled``, never with an outcome of the arena's own.
    settled = {p["agent"] for p in by_kind.get("TradeSettled", [])}
    unsettled = {p["agent"] for p in by_kind["TurnSkipped"] if p["reason"] == "unsettled"}
    assert settled | unsettled == set(placed)
    assert not settled & unsettled
    # D-TRD-3: the balances published are the broker's own, read back after the round.
    (finished,) = by_kind["RoundFinished"]
    for name in SCRIPT:
        assert int(finished["balances"][name]) == await broker.balance(name)
    for name in ("slow", "late", "invalid"):
        assert await broker.balance(name) == DRILL.start_balance


@pytest.mark.parametrize(
    ("seconds", "valid"),
    [(300, True), (120, True), (5, True), (30, True), (1, True),
     (90, False), (7, False), (0.5, False), (0, False), (-60, False)],
)  # fmt: skip
def test_direction_round_length_is_whole_minutes_or_a_drill_divisor(
    seconds: float, valid: bool
) -> None:
    """D-RND-1: a round is whole minutes (the seed's five by default) or a drill divisor.

    A drill round divides a minute, so every minute boundary stays a round open.
    """
    assert DirectionPreset().round_length == timedelta(minutes=5)
    length = timedelta(seconds=seconds)
    if valid:
        window = min(timedelta(milliseconds=500), length / 2)
        assert DirectionPreset(round_length=length, window=window).round_length == length
    else:
        with pytest.raises(ValueError, match="round"):
            DirectionPreset(round_length=length, window=timedelta(milliseconds=100))


def test_direction_replay_help_teaches_every_option() -> None:
    """``replay direction --help`` (no SPEC rule) names the arena's baselines, shows examples."""
    result = CliRunner().invoke(app, ["replay", "direction", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "baseline: coin-flip, down, momentum, up)" in text  # one naming style (issue 11)
    assert "buy-and-hold" not in text
    assert "coin_flip" not in text
    for example in ("crypto_1m", "2025-09-01T06:00Z", "+8.00", "sqlite:///", "REPORT.json",
                    "up=baseline:up"):  # fmt: skip
        assert example in text, example
    for metavar in ("PATH", "NAME=SPEC", "TIME", "PERCENT", "URL", "NAME"):
        assert f" {metavar} " in text, metavar
