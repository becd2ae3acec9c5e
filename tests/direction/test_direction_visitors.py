"""Visitors' own calls: the name, the round, the time, one per name, the arena's reading.

The site records a call in the round's visitors stream (``record_call``); the
arena reads that stream as outside input while the round takes calls and
places each call like a model's answer (D-PUB-2, D-RND-4).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from direction_helpers import START, always, contestant  # type: ignore[import-not-found]

from tradeleague.broker import PaperBroker
from tradeleague.clock import ReplayClock
from tradeleague.events import Event, EventKind, check_events
from tradeleague.events.direction import VISITOR_CALLED, visitors_stream
from tradeleague.feeds.candles import FrozenCandles
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.ledger import Ledger
from tradeleague.formats.direction.timing import round_times
from tradeleague.formats.direction.visitors import (
    CallRefused,
    Refusal,
    VisitorCall,
    call_round,
    check_in_time,
    check_playing,
    visitor_name,
)
from tradeleague.league.direction import DirectionArena, load_ledger
from tradeleague.league.direction.visitors import record_call
from tradeleague.league.pacing import LivePacing, ReplayPacing
from tradeleague.market import Dataset
from tradeleague.store import Store, open_store, verify

PRESET = DirectionPreset()
TIMES = round_times(START, PRESET)
RID = TIMES.round_id


def _refused(code: Refusal, call: Any, *args: Any) -> str:
    with pytest.raises(CallRefused) as caught:
        call(*args)
    assert caught.value.code is code
    return caught.value.message


def test_direction_visitor_name_is_bounded_and_normalised() -> None:
    """D-PUB-2, C-10: a name is bounded first, then NFKC, invisible characters out, spaces one."""
    assert visitor_name("  \uff21\uff4e\uff4e \u200b\t Lee  ") == "Ann Lee"
    assert visitor_name("\u202eann\u2066") == "ann"  # bidi controls removed, as C-10 removes them
    assert visitor_name("<b>x</b> & co") == "<b>x</b> & co"  # markup kept; payloads escape it
    assert visitor_name("Zoë 🐂") == "Zoë 🐂"
    assert visitor_name("a" * 40) == "a" * 40
    for bad in ("", "   ", "\u200b\u2060", "a" * 41, "a" * 5000, "a\x00b", "a\x07", "x\ue000"):
        _refused(Refusal.INVALID_NAME, visitor_name, bad)
    assert visitor_name("x\ud800") == "x\ufffd"  # a lone surrogate can be stored no way else


def test_direction_visitor_call_time_is_the_models_late_rule() -> None:
    """D-RND-4: a call with exactly 30 s left is on time, one with less is late."""
    assert call_round(START + timedelta(minutes=3, seconds=7), PRESET) == TIMES
    assert call_round(START, PRESET) == TIMES
    check_in_time(TIMES, START, PRESET)
    check_in_time(TIMES, TIMES.expiry - timedelta(seconds=30), PRESET)
    message = _refused(
        Refusal.LATE, check_in_time, TIMES, TIMES.expiry - timedelta(seconds=29.999), PRESET
    )
    assert "06:04:30 UTC" in message
    assert "D-" not in message
    _refused(Refusal.NO_OPEN_ROUND, check_in_time, TIMES, START - timedelta(seconds=1), PRESET)


def _ledger(*rounds: tuple[datetime, bool]) -> Ledger:
    ledger = Ledger()
    at = datetime(2025, 9, 1, tzinfo=UTC)
    ledger.apply(
        Event("direction", EventKind.SEASON_STARTED,
              {"season": "S1", "roster": [], "start_balance": "1", "payout_ppm": 1}, at)
    )  # fmt: skip
    for open_at, finished in rounds:
        times = round_times(open_at, PRESET)
        started = {"season": "S1", "round": times.round_id, "open_at": open_at.isoformat()}
        ledger.apply(Event("direction", EventKind.ROUND_STARTED, started, at))
        if finished:
            done = {"season": "S1", "round": times.round_id, "balances": {}}
            ledger.apply(Event("direction", EventKind.ROUND_FINISHED, done, at))
    return ledger


def test_direction_visitor_call_needs_the_arena_playing_the_round() -> None:
    """D-PUB-2: the arena's record must show the round open, or the one before it last."""
    step = PRESET.round_length
    check_playing(_ledger((START, False)), TIMES, PRESET)  # open in the record
    check_playing(_ledger((START - step, True)), TIMES, PRESET)  # its start not written yet
    check_playing(_ledger((START - step, False)), TIMES, PRESET)  # the last one still settling
    for ledger in (
        Ledger(),  # no season
        _ledger(),  # a season, no round
        _ledger((START, True)),  # the round has finished
        _ledger((START + step, False)),  # the arena is past it
        _ledger((START - 2 * step, True)),  # the arena is not playing now
    ):
        _refused(Refusal.NO_OPEN_ROUND, check_playing, ledger, TIMES, PRESET)


def test_direction_visitor_called_payload_is_read_as_outside_input() -> None:
    """D-PUB-2: the arena takes only well-formed calls from the visitors stream."""
    call = VisitorCall(RID, "ann", "up", START)
    assert VisitorCall.from_payload(call.to_payload()) == call
    assert check_events([Event("x", VISITOR_CALLED, call.to_payload(), START)]) == []
    good = call.to_payload()
    for bad in (
        {**good, "direction": "sideways"},
        {**good, "visitor": " ann"},  # not normalised: the site never writes it so
        {**good, "visitor": ""},
        {**good, "at": "yesterday"},
        {**good, "at": "2025-09-01T06:00:00"},  # naive
        {**good, "round": 7},
        {k: v for k, v in good.items() if k != "visitor"},
    ):
        assert VisitorCall.from_payload(bad) is None, bad


def test_direction_one_call_per_name_per_round_under_concurrency(db_url: str) -> None:
    """D-PUB-2: eight equal calls at once from eight threads: one recorded, seven refused."""
    with open_store(db_url) as store:
        results: list[str] = []
        barrier = threading.Barrier(8)

        def call(index: int) -> None:
            barrier.wait()
            try:
                record_call(store, stream="direction", times=TIMES, preset=PRESET,
                            visitor="ann", direction="up" if index % 2 else "down",
                            at=START + timedelta(seconds=index))  # fmt: skip
                results.append("taken")
            except CallRefused as exc:
                results.append(exc.code.value)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(results) == ["already_called"] * 7 + ["taken"]
        calls = list(store.events(visitors_stream("direction", RID)))
        assert [c.event.payload["visitor"] for c in calls] == ["ann"]
        assert verify(store).ok


def _arena(store: Store, data: Dataset, clock: ReplayClock, pacing: Any) -> DirectionArena:
    candles = FrozenCandles(data, clock)
    return DirectionArena(
        store=store,
        roster=[contestant("alpha", always("up", 2_000))],
        candles=candles,
        broker=PaperBroker(candles),
        clock=clock,
        pacing=pacing,
    )


def _round(store: Store, kind: str) -> list[dict[str, Any]]:
    return [s.event.payload for s in store.events("direction") if s.event.kind == kind]


async def test_direction_arena_reads_the_visitors_stream_as_outside_input(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-PUB-2, D-RND-4: malformed calls ignored, one per name, a late stamp recorded late.

    The visitors stream is written by the site, not the arena, so the arena
    judges what it reads: a malformed payload or another round's call is no
    call; a second call under a name is ignored; a call stamped with less than
    30 s left is ``late``, as a model's answer would be; one stamped before the
    ask is decided at the ask.
    """
    where = visitors_stream("direction", RID)

    def put(payload: dict[str, Any]) -> None:
        store.append([Event(where, VISITOR_CALLED, payload, START)])

    def call(name: str, way: str, at: datetime) -> dict[str, str]:
        return VisitorCall(RID, name, way, at).to_payload()

    put(call("early", "up", START - timedelta(seconds=5)))
    put(call("ann", "down", START + timedelta(seconds=10)))
    put(call("ann", "up", START + timedelta(seconds=11)))  # the second under one name
    put(call("tardy", "up", TIMES.expiry - timedelta(seconds=29)))
    put({**call("odd", "up", START), "direction": "sideways"})
    put({"round": RID, "visitor": "nobody"})
    put(VisitorCall("20250901T0605Z", "other", "up", START).to_payload())
    clock = ReplayClock(START)
    await _arena(store, synthetic_btc, clock, ReplayPacing(clock)).run_round(START)

    logged = [p["agent"] for p in _round(store, "VisitorCallLogged")]
    assert logged == ["visitor:early", "visitor:ann", "visitor:tardy"]
    decisions = {p["agent"]: p for p in _round(store, "DecisionMade")}
    assert decisions["visitor:ann"]["direction"] == "down"
    started = _round(store, "RoundStarted")[0]
    assert decisions["visitor:early"]["answered_at"] == started["ask_at"]
    assert decisions["visitor:early"]["latency_ms"] == 0
    skips = {p["agent"]: p["reason"] for p in _round(store, "TurnSkipped")}
    assert skips == {"visitor:tardy": "late"}
    placed = {p["agent"] for p in _round(store, "TradePlaced")}
    assert placed == {"alpha", "visitor:early", "visitor:ann"}
    assert check_events(s.event for s in store.events("direction")) == []
    (season,) = load_ledger(store).seasons.values()
    assert [e.name for e in season.shown_visitors()] == logged


class _SiteClock(ReplayClock):
    """A replay clock under live pacing; the 'site' records calls as time passes.

    Each call is ``(when it reaches the store, name, its stamp)``: the site's
    own path (``record_call``) when it is on time, a raw append otherwise.
    """

    def __init__(
        self, start: datetime, store: Store, calls: list[tuple[datetime, str, datetime]]
    ) -> None:
        super().__init__(start)
        self.store = store
        self.calls = calls
        self.sleeps: list[datetime] = []

    async def sleep_until(self, moment: datetime) -> None:
        self.sleeps.append(moment)
        for arrives, name, stamp in sorted(self.calls):
            if arrives <= moment:
                self.calls.remove((arrives, name, stamp))
                self.set(max(self.now(), arrives))
                record_call(self.store, stream="direction", times=TIMES, preset=PRESET,
                            visitor=name, direction="up", at=stamp)  # fmt: skip
        await super().sleep_until(moment)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_direction_live_arena_takes_calls_until_they_close(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-PUB-2, D-RND-4: live, calls that come after every model answered are still placed.

    The arena reads the visitors stream every second after the models'
    answers until half the late cutoff before expiry, so a call taken 31 s
    before expiry is placed, and so is one stamped on time that reaches the
    store a few seconds after the cutoff; one that reaches it after the
    reading has ended is never taken.
    """
    cutoff = TIMES.expiry - PRESET.late_cutoff
    on_time = TIMES.expiry - timedelta(seconds=31)
    slow_write = cutoff + timedelta(seconds=5)
    too_slow = TIMES.expiry - timedelta(seconds=10)
    calls = [
        (START + timedelta(seconds=90), "ann", START + timedelta(seconds=90)),
        (on_time, "bob", on_time),
        (slow_write, "cleo", cutoff - timedelta(milliseconds=1)),
        (too_slow, "carl", cutoff - timedelta(milliseconds=1)),
    ]
    clock = _SiteClock(START, store, calls)
    await _arena(store, synthetic_btc, clock, LivePacing(clock)).run_round(START)

    logged = [p["agent"] for p in _round(store, "VisitorCallLogged")]
    assert logged == ["visitor:ann", "visitor:bob", "visitor:cleo"]
    placed = {p["agent"]: p for p in _round(store, "TradePlaced")}
    assert {"visitor:ann", "visitor:bob", "visitor:cleo"} <= set(placed)
    assert _at(placed["visitor:bob"]["placed_at"]) >= on_time
    assert _at(placed["visitor:cleo"]["placed_at"]) >= slow_write
    assert TIMES.expiry - PRESET.late_cutoff / 2 in clock.sleeps  # the last reading
    settled = [p["agent"] for p in _round(store, "TradeSettled")]
    assert {"alpha", "visitor:ann", "visitor:bob", "visitor:cleo"} == set(settled)
    carl = list(store.events(visitors_stream("direction", RID)))[-1].event
    assert carl.payload["visitor"] == "carl"  # recorded, too late to be read: not in the round
