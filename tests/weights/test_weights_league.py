"""Rounds recorded as events: resume, holds released by an operator, owners' changes
(W-RND-2, W-RND-3, W-HOLD-2, W-REC-2, W-DIV-3, W-PX-1, C-4)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tradeleague.clock import ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind, check_events
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.league.weights import ops as ops
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.report import build_report
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store

SPECS = ["cash=baseline:cash", "eq=baseline:equal_weight", "coin=baseline:coin_flip"]


def _run(url: str, stop_after: int | None = None) -> dict[str, Any]:
    dataset = synthetic_dataset(6, 60, seed=3)
    source = FrozenBarsSource(dataset)
    parsed, agents, _ = build_agents(SPECS, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.PRO)
        for p, s in zip(parsed, SPECS, strict=True)
    ]
    last = datetime.fromtimestamp(int(dataset[dataset.symbols[0]].times[-1]), UTC).date()

    def stop(index: int, total: int, hour: datetime) -> None:
        if stop_after is not None and index + 1 == stop_after:
            raise KeyboardInterrupt

    with open_store(url) as store:
        state = asyncio.run(
            run_season(
                store,
                source,
                roster,
                agents,
                season_id="s",
                start=last - timedelta(days=20),
                end=last + timedelta(days=1),
                on_round=stop,
            )
        )
        return build_report(state)


def test_interrupt_and_resume_give_the_same_season(tmp_path: pytest.TempPathFactory) -> None:
    """C-4, W-RND-2: Ctrl-C keeps whole rounds; the same command resumes to the same result.

    The coin flip included: its generator is resumed past the turns recorded.
    """
    whole = _run(f"sqlite:///{tmp_path}/a.db")
    url = f"sqlite:///{tmp_path}/b.db"
    with pytest.raises(KeyboardInterrupt):
        _run(url, stop_after=4)
    with open_store(url) as store:
        kinds = [s.event.kind for s in store.events("weights/s")]
    assert kinds.count(EventKind.ROUND_STARTED) == kinds.count(EventKind.ROUND_FINISHED) == 4
    resumed = _run(url)
    # Exact resume: the seeded coin flip continues its draws where it stopped.
    assert resumed == whole


def test_operator_actions(sqlite_url: str) -> None:
    """W-SEA-1, W-REC-1, W-REC-2, W-HOLD-2 (release recorded: who, when), W-VAL-9 resume."""
    clock = ReplayClock(datetime(2026, 10, 5, 9, tzinfo=UTC))
    with open_store(sqlite_url) as store:
        sid = ops.create_season(
            store,
            clock,
            start=datetime(2026, 10, 5, tzinfo=UTC),
            symbols=["SPY", "QQQ"],
            decimals={"SPY": 8, "QQQ": 8},
            source="fixture",
        )
        state = ops.load_season(store, sid)
        agent = ops.add_agent(
            store,
            clock,
            state,
            name="a",
            owner="0xabc",
            division=Division.PRO,
            spec="baseline:cash",
            prompt="p0",
        )
        state = ops.load_season(store, sid)
        with pytest.raises(ConfigError, match="W-REC-1"):
            ops.add_agent(
                store,
                clock,
                state,
                name="b",
                owner="0xabc",
                division=Division.OPEN,
                spec="baseline:cash",
                prompt="",
            )
        stale = ops.load_season(store, sid)  # as another server read it, before the changes
        for i in range(3):
            clock.advance(timedelta(minutes=1))
            ops.change_prompt(store, clock, ops.load_season(store, sid), agent, f"p{i + 1}")
        with pytest.raises(ConfigError, match="W-REC-2"):
            ops.change_prompt(store, clock, ops.load_season(store, sid), agent, "p4")
        with pytest.raises(ConfigError, match="W-REC-2"):  # counted in the log, not the state
            ops.change_prompt(store, clock, stale, agent, "p4")
        with pytest.raises(ConfigError, match="not on hold"):
            ops.release_hold(store, clock, ops.load_season(store, sid), "SPY", "ops")
        ops.pause_agent(store, clock, ops.load_season(store, sid), agent, "operator")
        ops.resume_agent(store, clock, ops.load_season(store, sid), agent)
        ops.change_key(store, clock, ops.load_season(store, sid), agent, "sk-abcd1234")
        state = ops.load_season(store, sid)
        # C-4: every operator action's event matches its payload schema
        assert check_events((s.event for s in store.events(state.stream)), "weights") == []
    a = state.agents[agent]
    assert a.division is Division.PRO
    assert not a.paused
    assert a.changed_at == clock.now()
    assert [p for _, p in a.prompts] == ["p0", "p1", "p2", "p3"]
    assert a.portfolio.cash == state.preset.start_cash
