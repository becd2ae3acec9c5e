"""The live driver: consecutive drill rounds on the wall clock (D-RND-1, D-RND-2, D-TRD-3).

Three 2 s rounds run back to back by ``run_live`` on ``WallClock`` with
``LivePacing``. The broker's close events come slowly (1.5 s per poll), so
each round is still settling when the next one opens: the next open must not
wait for it, and every event must name its own round and season. Margins are
generous for a loaded 2-core machine: the assertions are about order and
identity, and the only timing bound is 1 s for an ask after its open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from direction_helpers import always, contestant  # type: ignore[import-not-found]

from tradeleague.broker import CloseEvent, PaperBroker
from tradeleague.clock import WallClock
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.league.direction import DirectionArena, next_open, run_live
from tradeleague.league.pacing import LivePacing
from tradeleague.money import Usd, usd
from tradeleague.store import Store

DRILL = DirectionPreset(
    round_length=timedelta(seconds=2),
    window=timedelta(seconds=1),
    late_cutoff=timedelta(milliseconds=200),
    settle_grace=timedelta(seconds=3),
    candles=5,
)


class _Minutes:
    """Candles by minute, a deterministic walk; any minute's candle is known at once."""

    def _at(self, opened: datetime) -> Candle:
        minute = int(opened.timestamp()) // 60
        close = Usd(usd(100_000) + (minute * 7_919) % 20_000 * 10_000)
        return Candle(opened, close, Usd(close + usd(5)), Usd(close - usd(5)), close)

    async def history(self, symbol: str, end: datetime, count: int) -> tuple[Candle, ...]:
        last = datetime.fromtimestamp(int(end.timestamp()) // 60 * 60, UTC)
        return tuple(self._at(last - (count - i) * MINUTE) for i in range(count))

    async def candle(self, symbol: str, open_time: datetime) -> Candle | None:
        return self._at(open_time)


class _SlowCloses(PaperBroker):
    async def closes(self, trade_ids: Sequence[str]) -> list[CloseEvent]:
        await asyncio.sleep(1.5)
        return await super().closes(trade_ids)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_direction_run_live_rounds_open_on_time_while_others_settle(store: Store) -> None:
    """D-RND-1: rounds run continuously, each at its own open, however slow settlement is.

    Also D-RND-2 (each round's trades share its expiry), D-TRD-3 (balances
    read back from the broker) and D-SEA-1 / C-8 (every event of an overlapping
    round names its season).
    """
    clock = WallClock()
    candles = _Minutes()
    broker = _SlowCloses(candles)
    roster = [contestant("bull", always("up", 50)), contestant("bear", always("down", 50))]
    arena = DirectionArena(
        store=store, roster=roster, candles=candles, broker=broker, clock=clock,
        pacing=LivePacing(clock, poll=timedelta(milliseconds=100)), preset=DRILL,
    )  # fmt: skip
    first = next_open(arena, clock.now() + timedelta(milliseconds=500))
    until = first + 3 * DRILL.round_length
    ids = await asyncio.wait_for(run_live(arena, until=until, start=first), 30)

    assert len(ids) == 3
    assert len(set(ids)) == 3
    events: list[tuple[str, dict[str, Any]]] = [
        (s.event.kind, s.event.payload) for s in store.events("direction")
    ]
    assert {p["season"] for _, p in events} == {"S1"}
    started = [p for k, p in events if k == "RoundStarted"]
    finished = [p for k, p in events if k == "RoundFinished"]
    assert [p["round"] for p in started] == ids
    assert sorted(p["round"] for p in finished) == sorted(ids)
    for i, s in enumerate(started):
        assert _at(s["open_at"]) == first + i * DRILL.round_length
        assert timedelta(0) <= _at(s["ask_at"]) - _at(s["open_at"]) < timedelta(seconds=1)
    # The rounds overlapped: a round finished only after the next one had opened.
    kinds = [(k, p.get("round")) for k, p in events]
    assert kinds.index(("RoundFinished", ids[0])) > kinds.index(("RoundStarted", ids[1]))
    placed: dict[str, set[str]] = {}
    for k, p in events:
        if k == "TradePlaced":
            placed.setdefault(p["round"], set()).add(p["expiry"])
    for s in started:
        assert placed[s["round"]] == {s["expiry"]}
    last: dict[str, Any] = next(p for p in reversed(finished))
    for name in ("bull", "bear"):
        assert int(last["balances"][name]) == await broker.balance(name)
    settled = [p for k, p in events if k == "TradeSettled"]
    assert len(settled) == 6
