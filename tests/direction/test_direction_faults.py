"""Faults in the direction arena: agents, brokers, rounds (D-SKP-1, D-TRD-3, D-RND-2, C-7, C-8).

One failure never takes the others down (DESIGN principle 7): a raising agent
is skipped as the league's fault, a raising broker is ``trade_rejected``, a
failing round is voided and finished, a missing close is voided with its
stake returned, and a replay that cannot answer from the record stops loudly
without leaving a half-written round.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from datetime import timedelta
from typing import Any

import pytest
from direction_helpers import START, always, contestant  # type: ignore[import-not-found]

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.agents.llm import ReplayMissed
from tradeleague.broker import BinaryOrder, CloseEvent, PaperBroker, Placed, Rejected
from tradeleague.calls import CallParams, Outcome
from tradeleague.clock import ReplayClock, WallClock
from tradeleague.feeds.candles import CandleSource, FrozenCandles
from tradeleague.formats.direction.skips import LEAGUE_FAULT
from tradeleague.league.direction import DirectionArena, replay_direction
from tradeleague.league.pacing import LivePacing, ReplayPacing
from tradeleague.league.turns import TakenTurn
from tradeleague.llm.records import CallKey, MissReason, ReplayMiss
from tradeleague.market import Dataset
from tradeleague.money import usd
from tradeleague.sim import Direction
from tradeleague.store import Store

TWO_ROUNDS = START + timedelta(minutes=10)


def _events(store: Store) -> list[tuple[str, dict[str, Any]]]:
    return [(s.event.kind, s.event.payload) for s in store.events("direction")]


def _of(store: Store, kind: str) -> list[dict[str, Any]]:
    return [p for k, p in _events(store) if k == kind]


def _every_round_finished(store: Store) -> None:
    started = [p["round"] for p in _of(store, "RoundStarted")]
    finished = [p["round"] for p in _of(store, "RoundFinished")]
    assert sorted(started) == sorted(finished)
    assert len(set(started)) == len(started)


def _raising(turn: Turn) -> tuple[Outcome, str, int]:
    raise RuntimeError("adapter bug")


async def test_direction_raising_agent_is_a_league_fault_skip(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-SKP-1, C-7: an agent that raises is skipped as the league's fault; the round goes on."""
    roster = [contestant("x", _raising), contestant("control", always("up", 1_000))]
    board = await replay_direction(store, synthetic_btc, roster, start=START, end=TWO_ROUNDS)
    x = next(r for r in board.models if r.entrant.name == "x")
    control = next(r for r in board.models if r.entrant.name == "control")
    assert x.skips == {LEAGUE_FAULT: 2}
    assert x.tally.balance == usd(50_000)
    assert control.tally.settled == 2
    skips = [s for s in _of(store, "TurnSkipped") if s["agent"] == "x"]
    assert all("league fault" in s["detail"] and "adapter bug" in s["detail"] for s in skips)
    _every_round_finished(store)


def _broker_factory(cls: type[PaperBroker]) -> Callable[[CandleSource], PaperBroker]:
    return lambda candles: cls(candles)


class _PlaceRaises(PaperBroker):
    async def place(self, order: BinaryOrder) -> Placed | Rejected:
        if order.account == "x":
            raise ConnectionError("broker unreachable")
        return await super().place(order)


async def test_direction_broker_error_on_place_is_trade_rejected(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-SKP-1 ``trade_rejected``: a broker raising on place is a rejection with its error."""
    roster = [contestant("x", always("up")), contestant("control", always("down", 1_000))]
    board = await replay_direction(
        store, synthetic_btc, roster, start=START, end=TWO_ROUNDS,
        broker=_broker_factory(_PlaceRaises),
    )  # fmt: skip
    x = next(r for r in board.models if r.entrant.name == "x")
    assert x.skips == {"trade_rejected": 2}
    assert x.tally.balance == usd(50_000)
    (skip, _) = [s for s in _of(store, "TurnSkipped") if s["agent"] == "x"]
    assert skip["detail"] == "broker_error"
    assert "broker unreachable" in skip["message"]
    _every_round_finished(store)


class _ClosesFailOnce(PaperBroker):
    failed = False

    async def closes(self, trade_ids: Any) -> list[CloseEvent]:
        if not self.failed:
            self.failed = True
            raise RuntimeError("settlement service down")
        return await super().closes(trade_ids)


async def test_direction_failing_round_is_voided_and_finished(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-SKP-1, D-TRD-3, C-4: a round that fails is void (why recorded), stakes returned.

    The next round runs normally; no round is left open.
    """
    roster = [contestant("a", always("up")), contestant("b", always("down", 1_000))]
    board = await replay_direction(
        store, synthetic_btc, roster, start=START, end=TWO_ROUNDS,
        broker=_broker_factory(_ClosesFailOnce),
    )  # fmt: skip
    _every_round_finished(store)
    (voided,) = _of(store, "RoundVoided")
    assert voided["reason"] == LEAGUE_FAULT
    assert "settlement service down" in voided["detail"]
    first, second = _of(store, "RoundFinished")
    assert first["void"] is True
    assert set(first["balances"].values()) == {str(usd(50_000))}  # stakes came back
    assert second["void"] is False
    assert board.void_rounds == 1
    assert all(r.tally.settled == 1 for r in board.models)


def _misses(turn: Turn) -> tuple[Outcome, str, int]:
    if turn.key.round.endswith("0605Z"):
        miss = ReplayMiss(key=turn.key, reason=MissReason.NOT_RECORDED, detail="test")
        raise ReplayMissed(miss)
    return (Outcome.ANSWERED, '{"direction": "up", "rationale": "Up."}', 2_000)


async def test_direction_replay_missed_is_loud_and_leaves_no_half_round(
    store: Store, synthetic_btc: Dataset
) -> None:
    """C-5, C-4: a replay that cannot answer stops loudly; no round is half-written.

    The arena is used again afterwards: nothing of the failed round may reach
    the store with the next round's events (a round started, never finished).
    """
    roster = [contestant("x", _misses), contestant("y", always("down"))]
    clock = ReplayClock(START)
    candles = FrozenCandles(synthetic_btc, clock)
    arena = DirectionArena(
        store=store, roster=roster, candles=candles, broker=PaperBroker(candles), clock=clock,
        pacing=ReplayPacing(clock),
    )  # fmt: skip
    await arena.run_round(START)
    with pytest.raises(ReplayMissed):
        await arena.run_round(START + timedelta(minutes=5))
    await arena.run_round(START + timedelta(minutes=10))
    _every_round_finished(store)
    rounds = {p.get("round") for _, p in _events(store)} - {None}
    assert rounds == {"20250901T0600Z", "20250901T0610Z"}


async def test_direction_live_pacing_cancels_outstanding_asks() -> None:
    """D-RND-3: when a round stops early, the answers still outstanding are cancelled."""
    cancelled = asyncio.Event()

    class Fast:
        name, kind = "fast", "baseline"

        async def answer(self, turn: Turn) -> AgentReply:
            return AgentReply(outcome=Outcome.ANSWERED, text="{}", latency_ms=1)

    class Slow:
        name, kind = "slow", "baseline"

        async def answer(self, turn: Turn) -> AgentReply:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            raise AssertionError("never reached")

    turn = Turn(format="direction", key=CallKey("S1", "r", "a"), messages=(), params=CallParams())
    pacing = LivePacing(WallClock())
    turns: AsyncGenerator[TakenTurn, None] = pacing.turns(
        [(Fast(), turn), (Slow(), turn)], timedelta(seconds=20)
    )
    first = await turns.__anext__()
    assert first.index == 0
    await turns.aclose()
    await asyncio.wait_for(cancelled.wait(), 5)


async def test_direction_unsettled_trade_is_voided_and_its_stake_returned(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-SKP-1 ``unsettled``, D-TRD-3: no close by the grace -> voided, stake back, read back."""
    roster = [contestant("x", always("up")), contestant("control", always("down", 1_000))]
    board = await replay_direction(
        store, synthetic_btc, roster, start=START, end=TWO_ROUNDS,
        broker=lambda c: PaperBroker(c, lose_close=lambda t, o: o.account == "x"),
    )  # fmt: skip
    x = next(r for r in board.models if r.entrant.name == "x")
    assert x.skips == {"unsettled": 2}
    assert x.tally.balance == usd(50_000)
    for finished in _of(store, "RoundFinished"):
        assert finished["balances"]["x"] == str(usd(50_000))


async def test_direction_paper_broker_void_returns_the_stake_once(synthetic_btc: Dataset) -> None:
    """D-SKP-1 ``unsettled``: a voided trade returns its stake, never settles afterwards."""
    clock = ReplayClock(START)
    candles = FrozenCandles(synthetic_btc, clock)
    broker = PaperBroker(candles)
    await broker.open_account("m", usd(50_000))
    (entry,) = await candles.history("BTCUSDT", START, 1)
    order = BinaryOrder(
        account="m", kind=Direction.CALL, symbol="BTCUSDT", stake=usd(10), strike=entry.close,
        placed_at=START, expiry=START + timedelta(minutes=5), client_ref="r/m",
    )  # fmt: skip
    placed = await broker.place(order)
    assert isinstance(placed, Placed)
    assert await broker.balance("m") == usd(49_990)
    assert await broker.closes([placed.trade_id]) == []  # the exit candle has not closed
    await broker.void([placed.trade_id])
    await broker.void([placed.trade_id])
    assert await broker.balance("m") == usd(50_000)
    clock.set(START + timedelta(minutes=10))
    assert await broker.closes([placed.trade_id]) == []
    assert await broker.balance("m") == usd(50_000)


async def test_direction_paper_broker_settles_an_off_minute_expiry(synthetic_btc: Dataset) -> None:
    """D-TRD-3: a drill expiry off the minute grid settles on the candle covering it."""
    expiry = START + timedelta(minutes=5, seconds=5)
    clock = ReplayClock(expiry)
    candles = FrozenCandles(synthetic_btc, clock)
    broker = PaperBroker(candles)
    await broker.open_account("m", usd(50_000))
    (entry,) = await candles.history("BTCUSDT", START, 1)
    order = BinaryOrder(
        account="m", kind=Direction.PUT, symbol="BTCUSDT", stake=usd(10), strike=entry.close,
        placed_at=START, expiry=expiry, client_ref="r/m",
    )  # fmt: skip
    placed = await broker.place(order)
    assert isinstance(placed, Placed)
    assert await broker.closes([placed.trade_id]) == []  # 06:05 candle still open at 06:05:05
    clock.set(START + timedelta(minutes=6))
    (close,) = await broker.closes([placed.trade_id])
    covering = await candles.candle("BTCUSDT", START + timedelta(minutes=5))
    assert covering is not None
    assert close.exit_price == covering.close


class _Handoff(PaperBroker):
    """Placing ``a`` waits until ``b`` is being placed: sequential placement deadlocks."""

    def __init__(self, candles: CandleSource) -> None:
        super().__init__(candles)
        self.b_placing = asyncio.Event()

    async def place(self, order: BinaryOrder) -> Placed | Rejected:
        if order.account == "a":
            await asyncio.wait_for(self.b_placing.wait(), 5)
        else:
            self.b_placing.set()
        return await super().place(order)


async def test_direction_trades_are_placed_as_their_answers_arrive(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-RND-2: each trade is placed at once, as its own task; a slow placement holds no other.

    The late rule (D-RND-4) keeps reading the answer's arrival; every trade
    still shares the round's expiry.
    """
    roster = [contestant("a", always("up", 1_000)), contestant("b", always("down", 2_000))]
    await replay_direction(
        store, synthetic_btc, roster, start=START, end=START + timedelta(minutes=5),
        broker=_Handoff,
    )  # fmt: skip
    placed = {p["agent"]: p for p in _of(store, "TradePlaced")}
    assert set(placed) == {"a", "b"}
    assert placed["a"]["placed_at"] == "2025-09-01T06:00:01.000000Z"
    assert placed["a"]["expiry"] == placed["b"]["expiry"] == "2025-09-01T06:05:00.000000Z"
    _every_round_finished(store)
