"""A live thesis season whose entry cycles were missed still takes its agents in (T-SEA-1).

A live host down at a season's first cycle (or at the cycle an agent joins)
plays the next cycle it can: every agent due by then enters at that cycle,
once, with the season's starting cash, and one due later still waits.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from pathlib import Path

from test_thesis_replay import SOURCES, tape  # type: ignore[import-not-found]

from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.clock import ReplayClock
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.baselines import make_baseline
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.league.pacing import ReplayPacing
from tradeleague.league.thesis.cycle import CycleConfig, Entrant
from tradeleague.league.thesis.season import ThesisSeason
from tradeleague.store import open_store, verify

__all__ = ["tape"]  # the module-scoped fixture of the replay tests


def test_agents_due_at_missed_cycles_enter_at_the_next_played_one_t_sea_1(
    tape: MarketTape, tmp_path: Path
) -> None:
    preset = ThesisPreset()
    agents = {n: BaselineAgent(n, *make_baseline("cash")) for n in ("first", "third", "fifth")}
    joins = {"first": 0, "third": 2, "fifth": 4}
    entrants = [
        Entrant(name=n, spec="baseline:cash", kind=a.kind, agentic=False, enters=joins[n])
        for n, a in agents.items()
    ]
    with open_store(f"sqlite:///{tmp_path / 'live.db'}") as store:
        season = ThesisSeason(
            store, tape.universe, entrants, agents, season_id="live", start=date(2025, 3, 3),
            end=date(2025, 3, 10), sources=SOURCES, replay=False, preset=preset,
            config=CycleConfig(),
        )  # fmt: skip
        clock = ReplayClock(datetime(2025, 3, 3, tzinfo=UTC))
        entered: dict[int, list[str]] = {}
        for index in (1, 3):  # the host was down at cycles 0 and 2
            moment = season.times[index]
            clock.set(datetime.fromtimestamp(moment, UTC))
            played = asyncio.run(season.play(tape, moment, ReplayPacing(clock)))
            entered[index] = [
                str(e.payload["agent"]) for e in played if e.kind == tev.AGENT_ENTERED
            ]
        assert entered == {1: ["first"], 3: ["third"]}  # fifth is due at 4: not yet
        assert sorted(season.state.agents) == ["first", "third"]
        for name in ("first", "third"):
            assert season.state.agents[name].book.portfolio.cash == preset.start_cash
        assert verify(store).ok
