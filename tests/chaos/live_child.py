"""A live direction arena as its own process, for the chaos tests to kill and restart.

Usage: ``python live_child.py EXCHANGE_URL DB_URL ROUNDS``. Runs ``run_live``
on the wall clock for ``ROUNDS`` drill rounds of 2 s from the next open:
candles through ``ccxt`` from the local Binance-format server at
EXCHANGE_URL, the paper broker settling on the same series, baseline agents
and a scripted one. Started again on the same database it goes on from the
record (``DirectionArena.resume``).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from tradeleague.agents.base import Agent
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.broker import PaperBroker
from tradeleague.clock import WallClock
from tradeleague.feeds.candles.live import CcxtCandles
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.baselines import direction_baseline
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.league.direction import Contestant, DirectionArena, next_open, run_live
from tradeleague.league.pacing import LivePacing
from tradeleague.store import open_store
from tradeleague.testing.binance import MinuteSeries

DRILL = DirectionPreset(
    round_length=timedelta(seconds=2),
    window=timedelta(seconds=1),
    late_cutoff=timedelta(milliseconds=200),
    settle_grace=timedelta(seconds=1),
    candles=5,
)
"""2 s rounds; the broker settles at expiry (every minute's candle is known at once)."""


def _roster(script: Path) -> list[Contestant]:
    agents: list[Agent] = []
    for name in ("up", "down", "coin_flip"):
        decide, render = direction_baseline(name, seed=7)
        agents.append(BaselineAgent(name, decide, render))  # type: ignore[arg-type]
    agents.append(ScriptedAgent.from_file("script", script))
    return [
        Contestant(
            entrant=Entrant(name=a.name, provider="house", tier="ECO", model=a.name), agent=a
        )
        for a in agents
    ]


async def main(exchange: str, db: str, rounds: int) -> None:
    """Run ``rounds`` live drill rounds into ``db`` (resuming what it holds)."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "script.jsonl"
        answers = [
            json.dumps({"text": json.dumps({"direction": d, "rationale": f"line {i}"})})
            for i, d in enumerate(["up", "down", "down"] * 40)
        ]
        script.write_text("\n".join(answers) + "\n", encoding="utf-8")
        clock = WallClock()
        candles = CcxtCandles.create(
            "binance", clock, {"BTCUSDT": "BTC/USDT"}, api_base=exchange,
            options={"fetchMarkets": {"types": ["spot"]}, "defaultType": "spot"},
        )  # fmt: skip
        try:
            with open_store(db) as store:
                arena = DirectionArena(
                    store=store, roster=_roster(script), candles=candles,
                    broker=PaperBroker(MinuteSeries()), clock=clock,
                    pacing=LivePacing(clock, poll=timedelta(milliseconds=100)), preset=DRILL,
                )  # fmt: skip
                await candles.history("BTCUSDT", clock.now(), 2)  # load the markets once
                first = next_open(arena, clock.now() + timedelta(milliseconds=300))
                await run_live(arena, until=first + rounds * DRILL.round_length, start=first)
        finally:
            await candles.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
