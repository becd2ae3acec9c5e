"""The Open division's daily allowance is counted as entries are applied (W-DIV, issue 16).

A round reads how many Open turns its day has used; the season state keeps
that count as it applies entries instead of walking every agent's entries each
round. Over a replay where the allowance runs out, the kept count equals the
count over the entries, per day, both in the replayed state and in one folded
again from the stored events.
"""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division, EntryKind, WeightsPreset
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.state import SeasonState
from tradeleague.market import load_dataset
from tradeleague.store import open_store

SYMBOLS = ["AAPL", "MSFT", "SPY", "QQQ", "SGOV"]
KINDS = ["cash", "equal_weight", "momentum", "coin_flip", "buy_and_hold"]


def _counted(state: SeasonState, day: date) -> int:
    return sum(
        1
        for a in state.agents.values()
        if a.division is Division.OPEN
        for x in a.entries
        if x.day == day and x.kind is not EntryKind.SKIPPED
    )


def test_open_turns_kept_equal_the_entries_counted(shared_data: Path, tmp_path: Path) -> None:
    """Per day, the kept count is the count of asked Open entries; Pro turns never count."""
    dataset = load_dataset(shared_data / "us_equities_daily", symbols=SYMBOLS)
    specs = [f"a{i}=baseline:{KINDS[i % len(KINDS)]}" for i in range(7)]
    _parsed, agents, _gateway = build_agents(specs)
    roster = [
        RosterEntry(
            name=s.split("=")[0],
            spec=s.split("=")[1],
            division=Division.PRO if i % 3 == 0 else Division.OPEN,
        )
        for i, s in enumerate(specs)
    ]
    preset = WeightsPreset(open_daily_allowance=3)
    with open_store(f"sqlite:///{tmp_path / 'open.db'}") as store:
        state = asyncio.run(
            run_season(
                store,
                FrozenBarsSource(dataset),
                roster,
                agents,
                season_id="open-turns",
                start=date(2026, 7, 6),
                end=date(2026, 7, 11),
                preset=preset,
            )
        )
        again = SeasonState.from_events(
            state.stream, (s.event for s in store.events(state.stream)), preset
        )
    days = sorted({x.day for a in state.agents.values() for x in a.entries})
    assert len(days) >= 4
    for day in days:
        assert state.open_turns_on(day) == _counted(state, day) == 3  # the allowance ran out
        assert again.open_turns_on(day) == _counted(again, day) == 3
    assert any(
        x.kind is EntryKind.SKIPPED for a in state.agents.values() for x in a.entries
    )  # some Open agents were turned away
    assert state.open_turns_on(date(2026, 7, 5)) == 0
