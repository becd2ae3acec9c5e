"""A round voided by a league fault after its trades were placed: stakes back (D-SKP-1, D-TRD-3).

The first round settles normally, so the balances going into the second differ
from the starting ones; the second round places every trade (the stakes leave
the accounts) and then fails at settlement. Its trades are voided with the
broker and the balances read back from the broker afterwards equal those read
before the round, to the micro-dollar.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from direction_helpers import START, always, contestant  # type: ignore[import-not-found]

from tradeleague.agents.base import Turn
from tradeleague.broker import BinaryOrder, CloseEvent, PaperBroker, Placed, Rejected
from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock
from tradeleague.feeds.candles import CandleSource, FrozenCandles
from tradeleague.formats.direction.skips import LEAGUE_FAULT
from tradeleague.league.direction import DirectionArena
from tradeleague.league.pacing import ReplayPacing
from tradeleague.market import Dataset
from tradeleague.money import Usd
from tradeleague.store import Store

SECOND = START + timedelta(minutes=5)
SECOND_ID = "20250901T0605Z"
ACCOUNTS = ("a", "b", "visitor:ann")


class _FailsSecondSettlement(PaperBroker):
    """Settles the first round; raises when asked for any close of the second round."""

    def __init__(self, candles: CandleSource) -> None:
        super().__init__(candles)
        self.second: set[str] = set()
        self.mid_round: dict[str, Usd] = {}

    async def place(self, order: BinaryOrder) -> Placed | Rejected:
        placed = await super().place(order)
        if isinstance(placed, Placed) and order.client_ref.startswith(SECOND_ID):
            self.second.add(placed.trade_id)
        return placed

    async def closes(self, trade_ids: Sequence[str]) -> list[CloseEvent]:
        if self.second & set(trade_ids):
            self.mid_round = {n: await self.balance(n) for n in ACCOUNTS}
            raise RuntimeError("settlement service down")
        return await super().closes(trade_ids)


async def test_direction_league_fault_after_placement_returns_every_stake(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-SKP-1 ``void``, D-TRD-3: a round failing after placement returns its stakes.

    The balances read back from the broker after the round equal the balances
    before it; the stakes had left the accounts while the round ran; the round
    is recorded ``RoundVoided`` (``league_fault``) and ``RoundFinished``, and
    nothing of it settled.
    """
    clock = ReplayClock(START)
    candles = FrozenCandles(synthetic_btc, clock)
    broker = _FailsSecondSettlement(candles)
    box: list[DirectionArena] = []

    def up_with_visitor(turn: Turn) -> tuple[Outcome, str, int]:
        box[0].visitor_call("ann", "down")
        return Outcome.ANSWERED, '{"direction": "up", "rationale": "Up."}', 1_000

    arena = DirectionArena(
        store=store,
        roster=[contestant("a", up_with_visitor), contestant("b", always("down", 2_000))],
        candles=candles,
        broker=broker,
        clock=clock,
        pacing=ReplayPacing(clock),
    )
    box.append(arena)
    first = await arena.run_round(START)
    before = {n: await broker.balance(n) for n in ACCOUNTS}
    second = await arena.run_round(SECOND)
    assert second == SECOND_ID
    after = {n: await broker.balance(n) for n in ACCOUNTS}

    assert after == before
    stake = arena.preset.stake
    assert broker.mid_round == {n: Usd(b - stake) for n, b in before.items()}

    events = [(s.event.kind, s.event.payload) for s in store.events("direction")]

    def of(kind: str, rid: str) -> list[dict[str, Any]]:
        return [p for k, p in events if k == kind and p.get("round") == rid]

    assert len(of("TradeSettled", first)) == 3  # the first round really settled
    assert {p["agent"] for p in of("TradePlaced", second)} == set(ACCOUNTS)
    assert of("TradeSettled", second) == []
    (voided,) = of("RoundVoided", second)
    assert voided["reason"] == LEAGUE_FAULT
    assert "settlement service down" in voided["detail"]
    (finished,) = of("RoundFinished", second)
    assert finished["void"] is True
    assert finished["settled"] == 0
    assert finished["balances"] == {n: str(int(b)) for n, b in before.items()}
