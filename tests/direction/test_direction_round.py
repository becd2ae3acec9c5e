"""The round clock, the prompt and the trades, through the arena (D-RND, D-ASK, D-TRD, D-SKP)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from direction_helpers import START, always, contestant  # type: ignore[import-not-found]

from tradeleague.agents.base import Turn
from tradeleague.broker import BinaryOrder, PaperBroker
from tradeleague.calls import Outcome
from tradeleague.events import check_events
from tradeleague.feeds.candles import CandleSource
from tradeleague.formats.direction import PROMPT_VERSION, SYSTEM_PROMPT, DirectionPreset
from tradeleague.formats.direction.candle import Candle
from tradeleague.formats.direction.prompt import render_user_message
from tradeleague.formats.direction.timing import (
    AnswerTiming,
    answer_timing,
    round_opens,
    round_times,
)
from tradeleague.league.direction import load_ledger, replay_direction
from tradeleague.market import Dataset
from tradeleague.money import Usd, usd
from tradeleague.store import Store

ONE_ROUND = START + timedelta(minutes=5)


def _events(store: Store, kind: str) -> list[dict[str, Any]]:
    return [s.event.payload for s in store.events("direction") if s.event.kind == kind]


def test_direction_prompt_is_the_seed_text(shared_data: Path) -> None:
    """D-ASK-1: system prompt and user layout character for character, version pinned."""
    seed = next((shared_data.parent / "seeds").glob("001_*.txt")).read_text(encoding="utf-8")
    assert PROMPT_VERSION == "2026-07-16.1"
    assert SYSTEM_PROMPT + "\n\nUser message" in seed
    seed_candles = [
        ("14:32", "118380.0", "118421.5", "118376.0", "118402.0"),
        ("14:33", "118402.0", "118433.0", "118398.5", "118427.5"),
        ("14:51", "118401.0", "118419.0", "118395.5", "118412.5"),
    ]
    candles = [
        Candle(START.replace(hour=14, minute=int(t[3:])), *(Usd(usd(v)) for v in vals))
        for t, *vals in seed_candles
    ]
    text = render_user_message(DirectionPreset(), usd("118412.50"), candles)
    lines = text.split("\n")
    assert lines[0:5] == [
        "Asset: BTC/USD",
        "Current price: 118412.50",
        "Horizon: 5 minutes from now.",
        "",
        "Last 3 one-minute candles (UTC, oldest first):",
    ]
    for line in lines[5:8]:
        assert line + "\n" in seed
    tail = "\n".join(lines[8:])
    assert "\n" + tail + "\n" in seed
    assert "\n".join(lines[0:4]) in seed


async def test_direction_one_identical_call_and_its_parameters(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-ASK-2, D-RND-2, C-2: every model gets the same messages and parameters."""
    roster = [contestant(f"m{i}", always("up", 1_000 * (i + 1))) for i in range(3)]
    await replay_direction(store, synthetic_btc, roster, start=START, end=ONE_ROUND)
    turns = [t for c in roster for t in c.agent.turns]
    assert len(turns) == 3
    assert {(t.messages, t.params) for t in turns} == {(turns[0].messages, turns[0].params)}
    params = turns[0].params
    assert (params.temperature, params.reasoning, params.max_tokens) == (0.3, False, 320)
    assert (params.timeout_s, params.retries) == (45.0, 0)


async def test_direction_round_publishes_its_facts_and_trades_share_the_expiry(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-RND-1, D-RND-2, D-TRD-1, D-TRD-2: 180 candles, entry = last close, one expiry."""
    roster = [contestant("fast", always("up", 2_000)), contestant("slow", always("down", 30_000))]
    await replay_direction(store, synthetic_btc, roster, start=START, end=ONE_ROUND)
    (started,) = _events(store, "RoundStarted")
    assert started["asset"] == "BTC/USD"
    assert started["expiry"] == "2025-09-01T06:05:00.000000Z"
    assert len(started["candles"]) == 180
    assert started["entry_price"] == str(usd(started["candles"][-1][4]))
    placed = {p["agent"]: p for p in _events(store, "TradePlaced")}
    assert {p["expiry"] for p in placed.values()} == {started["expiry"]}
    assert placed["fast"]["kind"] == "call"
    assert placed["slow"]["kind"] == "put"
    assert placed["fast"]["duration_ms"] - placed["slow"]["duration_ms"] == 28_000
    assert placed["fast"]["stake"] == str(usd(10))
    (season,) = _events(store, "SeasonStarted")
    assert season["start_balance"] == str(usd(50_000))


def test_direction_round_clock_rules() -> None:
    """D-RND-1, D-RND-3, D-RND-4: 288 rounds a day; 45 s window; under 30 s left is late."""
    preset = DirectionPreset()
    assert len(round_opens(START, START + timedelta(days=1), preset)) == 288
    times = round_times(START, preset)
    assert answer_timing(times, START, 45_000, preset) is AnswerTiming.ON_TIME
    assert answer_timing(times, START, 45_001, preset) is AnswerTiming.TIMEOUT
    assert answer_timing(times, START, None, preset) is AnswerTiming.TIMEOUT
    lagged = START + timedelta(seconds=240)
    assert answer_timing(times, lagged, 30_000, preset) is AnswerTiming.ON_TIME
    assert answer_timing(times, lagged, 30_001, preset) is AnswerTiming.LATE


def _lagged(seconds: int) -> Callable[[Any], timedelta]:
    return lambda open_at: timedelta(seconds=seconds)


def _refusal(turn: Turn) -> tuple[Outcome, str, int]:
    return Outcome.ANSWERED, "I'm sorry, I can't help with trading decisions.", 3_000


def _provider_down(turn: Turn) -> tuple[Outcome, None, int]:
    return Outcome.PROVIDER_ERROR, None, 400


def _broker(**kwargs: Any) -> Callable[[CandleSource], PaperBroker]:
    return lambda candles: PaperBroker(candles, **kwargs)


SKIP_CASES: list[tuple[str, Callable[[Turn], tuple[Outcome, str | None, int]], dict[str, Any]]] = [
    ("timeout", always("up", 45_500), {}),
    ("timeout", _provider_down, {}),
    ("invalid", _refusal, {}),
    ("late", always("up", 25_000), {"ask_lag": _lagged(250)}),
    (
        "trade_rejected",
        always("up"),
        {"broker": _broker(reject=lambda o: "MARKET_CLOSED" if o.account == "x" else None)},
    ),
    ("unsettled", always("up"), {"broker": _broker(lose_close=lambda t, o: o.account == "x")}),
]


@pytest.mark.parametrize(("reason", "play", "options"), SKIP_CASES)
async def test_direction_each_skip_class(
    store: Store,
    synthetic_btc: Dataset,
    reason: str,
    play: Callable[[Turn], tuple[Outcome, str | None, int]],
    options: dict[str, Any],
) -> None:
    """D-SKP-1, D-RND-3, D-RND-4: each skip class hits one model; the other carries on."""
    roster = [contestant("x", play), contestant("control", always("down", 1_000))]
    board = await replay_direction(
        store, synthetic_btc, roster, start=START, end=ONE_ROUND, **options
    )
    x = next(r for r in board.models if r.entrant.name == "x")
    control = next(r for r in board.models if r.entrant.name == "control")
    assert x.skips == {reason: 1}
    assert x.tally.settled == 0
    if reason == "trade_rejected":
        (skip,) = [s for s in _events(store, "TurnSkipped") if s["agent"] == "x"]
        assert skip["detail"] == "MARKET_CLOSED"
    assert control.tally.settled == 1
    if reason in ("late", "invalid"):
        texts = [d["agent"] for d in _events(store, "DecisionMade")]
        assert ("x" in texts) == (reason == "late")
    # C-4: each skip class's extra fields are declared in its payload schema
    assert check_events((s.event for s in store.events("direction")), "direction") == []


async def test_direction_void_round_scores_nobody(store: Store, synthetic_btc: Dataset) -> None:
    """D-SKP-1 void: no model completed a trade; nobody is due, nothing moves."""
    roster = [contestant("a", always("up", 50_000)), contestant("b", _refusal)]
    board = await replay_direction(store, synthetic_btc, roster, start=START, end=ONE_ROUND)
    assert board.void_rounds == 1
    for row in board.models:
        assert row.skips == {"void": 1}
        assert row.answer_rate is None
        assert row.tally.balance == usd(50_000)
    (finished,) = _events(store, "RoundFinished")
    assert finished["void"] is True
    assert finished["label"] == "none"
    assert check_events((s.event for s in store.events("direction")), "direction") == []  # C-4


async def test_direction_the_broker_decides_and_is_read_back(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-TRD-3, D-TRD-4, D-TRD-5: a broker paying 75% wins over the arena's 80%."""

    def payout(order: BinaryOrder) -> int:
        return 750_000

    roster = [contestant("bull", always("up")), contestant("bear", always("down"))]
    board = await replay_direction(
        store,
        synthetic_btc,
        roster,
        start=START,
        end=START + timedelta(hours=2),
        broker=_broker(payout_for=payout),
    )
    assert board.payout_ppm == 800_000
    settled = _events(store, "TradeSettled")
    assert {s["payout_ppm"] for s in settled} == {750_000}
    for row in board.models:
        t = row.tally
        assert t.balance == usd(50_000) + usd("7.50") * t.wins - usd(10) * t.losses
        assert t.balance != usd(50_000) + usd(8) * t.wins - usd(10) * t.losses or t.wins == 0
    for finished in _events(store, "RoundFinished"):
        mine = [s for s in settled if s["round"] == finished["round"]]
        bull = next(s for s in mine if s["agent"] == "bull")
        expected = {"win": "up", "loss": "down", "draw": "flat"}[bull["outcome"]]
        assert finished["label"] == expected
    ledger = load_ledger(store)
    assert ledger.current is not None
    assert {r.pnl for r in ledger.current.log("bull") if r.result == "win"} == {usd("7.50")}
