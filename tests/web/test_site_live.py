"""The live direction round in a real browser: the countdown runs, calls show only after expiry.

A ``DirectionArena`` plays one live round on the wall clock in a thread of its
own, writing to the store the site serves. Its pacing is the live pacing with
one change: settling waits on a gate the test opens, so the round stays open
(calls hidden, SPEC D-PUB-1) for as long as the test looks at it, however slow
the machine. The round is a 20 s drill round (the preset's own knob), so the
code under test is the code that runs five-minute rounds.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.broker import PaperBroker
from tradeleague.broker.base import Broker, CloseEvent
from tradeleague.calls import Outcome
from tradeleague.clock import WallClock
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.timing import round_id
from tradeleague.league.direction import Contestant, DirectionArena
from tradeleague.league.pacing import LivePacing
from tradeleague.league.scenario import ScenarioService
from tradeleague.money import Usd
from tradeleague.site import create_site
from tradeleague.store import Store, open_store
from tradeleague.testing.server import serve_asgi
from web import patient  # type: ignore[import-not-found]

STREAM = "live-direction"
DRILL = DirectionPreset(
    round_length=timedelta(seconds=20),
    window=timedelta(seconds=5),
    late_cutoff=timedelta(seconds=2),
    settle_grace=timedelta(seconds=5),
    candles=30,
)
RATIONALES = {"riser": "Higher lows all hour.", "faller": "Momentum is fading."}
HIDDEN = {"direction", "rationale", "calls", "label", "result", "text", "tally"}


class EveryMinute:
    """A candle source that knows every minute (deterministic prices), for the live round."""

    @staticmethod
    def _at(open_time: datetime) -> Candle:
        minute = int(open_time.timestamp()) // 60
        close = 100_000_000_000 + (minute * 7_919) % 20_000_000 - 10_000_000
        opened = close - 1_000_000
        return Candle(
            open_time, Usd(opened), Usd(close + 500_000), Usd(opened - 500_000), Usd(close)
        )

    async def history(self, symbol: str, end: datetime, count: int) -> tuple[Candle, ...]:
        """Return the ``count`` candles closed by ``end`` (floored to the minute)."""
        last_close = datetime.fromtimestamp(int(end.timestamp()) // 60 * 60, UTC)
        return tuple(self._at(last_close - (count - i) * MINUTE) for i in range(count))

    async def candle(self, symbol: str, open_time: datetime) -> Candle | None:
        """Return the candle opened at ``open_time``."""
        return self._at(open_time)


@dataclass(slots=True)
class Caller:
    """A model that calls one direction at once, with a rationale."""

    name: str
    direction: str
    kind: str = "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        text = json.dumps({"direction": self.direction, "rationale": RATIONALES[self.name]})
        return AgentReply(outcome=Outcome.ANSWERED, text=text, latency_ms=50)


class GatedPacing(LivePacing):
    """Live pacing whose settling waits until the test opens ``gate``."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__(WallClock(), poll=timedelta(milliseconds=200))
        self._gate = gate

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Wait for the gate, then poll as live play does."""
        await asyncio.to_thread(self._gate.wait, 120)
        return await super().closes(broker, trade_ids, expiry, deadline)


def _open_at() -> datetime:
    """Return a grid open with at least 17 s of the round still to run."""
    step = int(DRILL.round_length.total_seconds())
    now = time.time()
    grid = int(now) // step * step
    return datetime.fromtimestamp(grid if now - grid <= 3 else grid + step, UTC)


def _kinds(store: Store, rid: str) -> list[str]:
    return [s.event.kind for s in store.events(STREAM) if s.event.payload.get("round") == rid]


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


@pytest.fixture
def live_site(tmp_path: Any) -> Iterator[tuple[str, Store, threading.Event, str, list[str]]]:
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 'live.db'}"), WallClock())
    gate = threading.Event()
    candles = EveryMinute()
    arena = DirectionArena(
        store=service.store,
        roster=[
            Contestant(
                entrant=Entrant(name=n, provider="p1", tier="TOP", model=f"p1/{n}"),
                agent=Caller(n, d),
            )
            for n, d in (("riser", "up"), ("faller", "down"))
        ],
        candles=candles,
        broker=PaperBroker(candles),
        clock=WallClock(),
        pacing=GatedPacing(gate),
        preset=DRILL,
        stream=STREAM,
    )
    open_at = _open_at()
    errors: list[str] = []

    def play() -> None:
        try:
            asyncio.run(arena.run_round(open_at))
        except Exception as exc:  # reported by the test, not lost in the thread
            errors.append(repr(exc))

    thread = threading.Thread(target=play, daemon=True)
    with serve_asgi(create_site(service, direction_stream=STREAM, direction_preset=DRILL)) as base:
        thread.start()
        try:
            yield base, service.store, gate, round_id(open_at), errors
        finally:
            gate.set()
            thread.join(60)
    service.store.close()


def test_live_round_counts_down_and_reveals_calls_only_after_expiry(
    live_site: tuple[str, Store, threading.Event, str, list[str]], browser: Any
) -> None:
    """D-PUB-1: while open no call is in the page or any JSON it fetched; after expiry all show."""
    base, store, gate, rid, errors = live_site
    deadline = time.monotonic() + 40
    while _kinds(store, rid).count("TradePlaced") < 2:
        assert time.monotonic() < deadline, ("no trades placed", _kinds(store, rid), errors)
        assert "RoundFinished" not in _kinds(store, rid), errors
        time.sleep(0.05)

    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    fetched: list[Any] = []
    crashes: list[str] = []
    page.on("response", lambda r: fetched.append(r) if "/api/" in r.url else None)
    page.on("pageerror", lambda e: crashes.append(str(e)))
    page.goto(base + "/direction", wait_until="load")
    clock = page.locator("#countdown")
    assert int(clock.get_attribute("data-remaining") or "0") >= 3
    first = clock.inner_text()
    page.wait_for_timeout(2_200)
    second = clock.inner_text()
    assert first != second, (first, second)
    assert page.locator("#live").get_attribute("data-status") == "open"
    assert page.locator("[data-field=committed]").inner_text() == "2"
    # played on the wall clock: the page says live, as the season's start records
    assert page.locator("#live-h").inner_text() == "The live round"
    assert page.locator('[data-field="kind"]').inner_text() == "live"
    assert patient.get(f"{base}/api/v1/direction/boards").json()["replay"] is False

    # While open: nothing of a call in the page, nor in any JSON the page polled.
    assert page.locator("table.calls").count() == 0
    html = page.content()
    assert not any(text in html for text in RATIONALES.values())
    polled = [r for r in fetched if r.url.endswith("/api/v1/direction/rounds/current")]
    assert polled, "the page never polled the current round"
    for response in polled:
        body = response.json()
        assert body["status"] == "open"
        for node in _walk(body):
            if isinstance(node, dict):
                assert not HIDDEN & set(node), node.keys()
            assert node not in ("up", "down")
    assert "RoundFinished" not in _kinds(store, rid)

    # Expiry and settlement: the page reloads itself and shows every call.
    gate.set()
    page.wait_for_selector("table.calls", timeout=60_000)
    assert page.locator("#live").get_attribute("data-status") == "finished"
    assert page.locator("#countdown").count() == 0
    served = patient.get(f"{base}/api/v1/direction/rounds/{rid}").json()
    assert served["status"] == "finished"
    for call in served["calls"]:
        row = page.locator(f'table.calls tr[data-model="{call["model"]}"]')
        cells = row.locator("td").all_inner_texts()
        assert cells[1] == call["direction"]
        assert cells[-1] == RATIONALES[call["model"]] == call["rationale"]
    assert {c["direction"] for c in served["calls"]} == {"up", "down"}
    assert crashes == []
    assert errors == []
    context.close()
