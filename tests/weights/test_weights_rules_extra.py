"""Rules of the weights league checked through the live round code: W-PX-1, W-PX-3, W-RND-3,
W-EXE-3, W-RNK-4, W-DIV-1 (the Open round), W-VAL-8 (hangs), W-SKP-3 (league faults)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.llm import ReplayMissed
from tradeleague.calls import CallParams
from tradeleague.clock import ReplayClock
from tradeleague.events import Event, EventKind
from tradeleague.feeds import FrozenBarsSource, SourceReading
from tradeleague.formats.weights import (
    RETURN_PERIODS,
    ClosedReason,
    Division,
    FeedReading,
    HaltReason,
    UnrankedReason,
    WeightsPreset,
    assess_market,
)
from tradeleague.league.pacing import ReplayPacing
from tradeleague.league.weights import ops as ops
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.round import RoundConfig, play_round
from tradeleague.llm.records import CallKey, MissReason, ReplayMiss
from tradeleague.market import synthetic_dataset
from tradeleague.money import Usd
from tradeleague.sim import Fill, Side
from tradeleague.store import Store, open_store

MONDAY = datetime(2026, 10, 5, tzinfo=UTC)
PRICES = {"AAA": 100_000_000, "BBB": 50_000_000, "CCC": 20_000_000}


class FixedSource:
    """A price source whose feeds never move (prices in micro-dollars, fresh every read)."""

    name = "fixed"
    synthetic = True

    def __init__(self, prices: Mapping[str, int]) -> None:
        self.prices = dict(prices)

    async def read(self, symbols: Sequence[str], at: datetime) -> SourceReading:
        readings = {
            s: FeedReading(
                symbol=s, answer=self.prices[s], decimals=6, updated_at=at - timedelta(minutes=1)
            )
            for s in symbols
        }
        return SourceReading(
            read_at=at, node_block_time=at, readings=readings, decimals=dict.fromkeys(symbols, 6)
        )

    def returns(self, symbol: str, at: datetime) -> Mapping[int, Fraction | None]:
        return dict.fromkeys(RETURN_PERIODS)

    def history(self, symbol: str, at: datetime, keep: int) -> list[Usd]:
        return []


def _script(path: Path, answers: Sequence[Mapping[str, object]]) -> str:
    lines = [json.dumps({"text": json.dumps(a)}) for a in answers]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"scripted:{path}"


def _season(store: Store, clock: ReplayClock) -> str:
    return ops.create_season(
        store,
        clock,
        start=MONDAY,
        symbols=sorted(PRICES),
        decimals=dict.fromkeys(PRICES, 6),
        source="fixed",
        season_id="x",
    )


def _play(
    store: Store,
    season: str,
    agents: Mapping[str, object],
    hour: datetime,
    prices: Mapping[str, int] = PRICES,
) -> list[Event]:
    clock = ReplayClock(hour)
    state = ops.load_season(store, season)
    source = FixedSource(prices)
    events = asyncio.run(play_round(state, source, agents, hour, ReplayPacing(clock)))  # type: ignore[arg-type]
    store.append(events)
    return events


def _fills(events: Sequence[Event]) -> list[Fill]:
    return [
        Fill.from_payload(e.payload["fill"])  # type: ignore[arg-type]
        for e in events
        if e.kind == EventKind.ORDER_FILLED
    ]


def _agent(store: Store, clock: ReplayClock, season: str, name: str, spec: str) -> str:
    return ops.add_agent(
        store,
        clock,
        ops.load_season(store, season),
        name=name,
        owner=name,
        division=Division.PRO,
        spec=spec,
        prompt="p",
    )


def _runtime(ids: Mapping[str, str], specs: Mapping[str, str]) -> dict[str, object]:
    return {
        ids[n]: build_agents([f"{n}={specs[n]}"], gateway=object())[1][n]  # type: ignore[arg-type]
        for n in ids
    }


def test_small_changes_are_not_traded_but_zero_targets_sell_in_full(
    tmp_path: Path, sqlite_url: str
) -> None:
    """W-EXE-3: a change under 0.5% of the value is not traded; a zero target sells in full."""
    answers = [
        {"targets": {"AAA": 20, "BBB": 0.6, "CCC": 0.4}, "reason": "Start."},
        {"targets": {"AAA": 20}, "reason": "Keep AAA; drop BBB."},
    ]
    specs = {"a": _script(tmp_path / "a.jsonl", answers)}
    clock = ReplayClock(MONDAY)
    with open_store(sqlite_url) as store:
        season = _season(store, clock)
        ids = {"a": _agent(store, clock, season, "a", specs["a"])}
        runtime = _runtime(ids, specs)
        first = _fills(_play(store, season, runtime, MONDAY + timedelta(hours=15)))
        # CCC's 0.4% is under the threshold: not bought. BBB's 0.6% is over it: bought.
        assert [(f.symbol, f.side) for f in first] == [("AAA", Side.BUY), ("BBB", Side.BUY)]
        bbb = ops.load_season(store, season).holdings(ids["a"])["BBB"]
        # BBB falls 20% (no hold): its holding is now under 0.5% of the portfolio.
        fallen = {s: Usd(p) for s, p in PRICES.items()}
        fallen["BBB"] = Usd(PRICES["BBB"] * 8 // 10)
        state = ops.load_season(store, season)
        value = state.agents[ids["a"]].portfolio.equity(fallen)
        assert bbb * fallen["BBB"] // 10**6 * 200 < value
        second = _fills(_play(store, season, runtime, MONDAY + timedelta(hours=16), fallen))
        # AAA: 20% -> 20% is no change worth trading; BBB (target 0) is sold in full.
        assert [(f.symbol, f.side, f.qty) for f in second] == [("BBB", Side.SELL, bbb)]
        assert "BBB" not in ops.load_season(store, season).holdings(ids["a"])


def test_fills_only_at_the_round_reference_price(tmp_path: Path, sqlite_url: str) -> None:
    """W-PX-1, W-RND-2: every fill of a replayed season is at its round's reference price."""
    dataset = synthetic_dataset(3, 30, seed=11)
    specs = ["eq=baseline:equal_weight", "mom=baseline:momentum", "coin=baseline:coin_flip"]
    parsed, agents, _ = build_agents(specs, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.PRO)
        for p, s in zip(parsed, specs, strict=True)
    ]
    last = datetime.fromtimestamp(int(dataset[dataset.symbols[0]].times[-1]), UTC).date()
    with open_store(sqlite_url) as store:
        asyncio.run(
            run_season(
                store,
                FrozenBarsSource(dataset),
                roster,
                agents,
                season_id="px",
                start=last - timedelta(days=14),
                end=last + timedelta(days=1),
            )
        )
        prices: dict[str, dict[str, int]] = {}
        checked = 0
        for stored in store.events("weights/px"):
            e = stored.event
            if e.kind == EventKind.ROUND_STARTED:
                raw: Mapping[str, object] = e.payload["prices"]  # type: ignore[assignment]
                prices[str(e.payload["round"])] = {k: int(str(v)) for k, v in raw.items()}
            elif e.kind == EventKind.ORDER_FILLED:
                fill = Fill.from_payload(e.payload["fill"])  # type: ignore[arg-type]
                assert fill.price == prices[str(e.payload["round"])][fill.symbol]
                checked += 1
    assert checked > 10


def test_feed_schedule_heartbeat_and_weekends() -> None:
    """W-PX-3 (with W-MKT-1, W-MKT-2): a quiet weekday feed inside its 24-hour heartbeat is
    not halted; after a weekend (last publish Friday 20:00 New York) every feed is stale and
    the market is closed on Monday morning until the feeds publish again."""
    preset = WeightsPreset()
    tuesday = datetime(2026, 10, 6, 15, tzinfo=UTC)

    def reading(symbol: str, updated: datetime) -> FeedReading:
        return FeedReading(symbol=symbol, answer=100_00000000, decimals=8, updated_at=updated)

    quiet = {
        "AAA": reading("AAA", tuesday - timedelta(hours=24)),  # heartbeat only
        "BBB": reading("BBB", tuesday - timedelta(minutes=20)),  # a 0.5% deviation update
    }
    assessed = assess_market(quiet, dict.fromkeys(quiet, 8), tuesday, tuesday, preset)
    assert assessed.open
    assert not assessed.halted
    friday_close = datetime(2026, 10, 3, 0, tzinfo=UTC)  # Friday 20:00 EDT
    monday = datetime(2026, 10, 5, 13, tzinfo=UTC)
    weekend = {s: reading(s, friday_close) for s in ("AAA", "BBB", "CCC")}
    assessed = assess_market(weekend, dict.fromkeys(weekend, 8), monday, monday, preset)
    assert ClosedReason.NO_RECENT_UPDATE in assessed.closed
    assert all(r == (HaltReason.STALE,) for r in assessed.halted.values())
    sunday_open = datetime(2026, 10, 5, 0, 5, tzinfo=UTC)  # Sunday 20:05 EDT: feeds resume
    resumed = {s: reading(s, sunday_open) for s in ("AAA", "BBB", "CCC")}
    assessed = assess_market(resumed, dict.fromkeys(resumed, 8), monday, monday, preset)
    assert ClosedReason.NO_RECENT_UPDATE in assessed.closed  # 13 h since: still no recent update
    fresh = {s: reading(s, monday - timedelta(minutes=30)) for s in ("AAA", "BBB", "CCC")}
    assert assess_market(fresh, dict.fromkeys(fresh, 8), monday, monday, preset).open


def test_participants_are_settled_at_the_round_start(tmp_path: Path, sqlite_url: str) -> None:
    """W-RND-3, W-SKP-3, C-7: an agent created after the read waits for the next round; one
    whose prompt changed after the read is skipped for that round (a TurnSkipped entry with a
    reason code, not a decision and not a "No decision"); the others play."""
    good = [{"targets": {"AAA": 10}, "reason": "Some AAA."}] * 5
    specs = {n: _script(tmp_path / f"{n}.jsonl", good) for n in ("early", "changed", "late")}
    hour = MONDAY + timedelta(hours=15)
    clock = ReplayClock(MONDAY)
    with open_store(sqlite_url) as store:
        season = _season(store, clock)
        ids = {n: _agent(store, clock, season, n, specs[n]) for n in ("early", "changed")}
        clock.set(hour + timedelta(seconds=1))  # after the round's prices were read at `hour`
        ops.change_prompt(store, clock, ops.load_season(store, season), ids["changed"], "new")
        ids["late"] = _agent(store, clock, season, "late", specs["late"])
        runtime = _runtime(ids, specs)
        events = _play(store, season, runtime, hour)
        started = next(e for e in events if e.kind == EventKind.ROUND_STARTED)
        members: list[str] = started.payload["participants"]  # type: ignore[assignment]
        assert sorted(members) == sorted([ids["early"], ids["changed"]])
        kinds = {
            str(e.payload.get("agent")): e
            for e in events
            if e.kind in (EventKind.DECISION_MADE, EventKind.TURN_SKIPPED)
        }
        assert kinds[ids["early"]].kind == EventKind.DECISION_MADE
        assert kinds[ids["changed"]].kind == EventKind.TURN_SKIPPED
        assert kinds[ids["changed"]].payload["reason_code"] == "changed_after_read"
        assert ids["late"] not in kinds
        nxt = _play(store, season, runtime, hour + timedelta(hours=1))
        decided = {str(e.payload["agent"]) for e in nxt if e.kind == EventKind.DECISION_MADE}
        assert decided == set(ids.values())  # from the next round, everyone plays


def test_ranks_published_per_division(sqlite_url: str) -> None:
    """W-RNK-4, W-DIV-1: ranks are published after every round for Pro, after the daily round
    (the day's first) for Open."""
    dataset = synthetic_dataset(3, 24 * 12, seed=2, bar_size=timedelta(hours=1))
    specs = ["p=baseline:equal_weight", "o=baseline:equal_weight"]
    _parsed, agents, _ = build_agents(specs, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name="p", spec=specs[0], division=Division.PRO),
        RosterEntry(name="o", spec=specs[1], division=Division.OPEN),
    ]
    times = dataset[dataset.symbols[0]].times
    first = datetime.fromtimestamp(int(times[0]), UTC).date()
    with open_store(sqlite_url) as store:
        state = asyncio.run(
            run_season(
                store,
                FrozenBarsSource(dataset),
                roster,
                agents,
                season_id="rk",
                start=first + timedelta(days=1),
                end=first + timedelta(days=6),
            )
        )
        finished = [
            s.event for s in store.events("weights/rk") if s.event.kind == EventKind.ROUND_FINISHED
        ]
    assert len(finished) >= 10
    days: dict[date, list[tuple[int, list[str]]]] = {}
    for e in finished:
        hour = datetime.fromisoformat(str(e.payload["round"]).replace("Z", "+00:00"))
        days.setdefault(hour.date(), []).append((hour.hour, list(e.payload["ranked"])))  # type: ignore[call-overload]
    for rounds in days.values():
        assert rounds[0][1] == ["open", "pro"]  # the daily round ranks both
        assert all(ranked == ["pro"] for _, ranked in rounds[1:])  # later rounds: Pro only
    assert state.ranked_rounds[Division.PRO].hour == 19
    assert state.ranked_rounds[Division.OPEN].hour == 15


def _open(store: Store, clock: ReplayClock, season: str, name: str, spec: str) -> str:
    return ops.add_agent(
        store,
        clock,
        ops.load_season(store, season),
        name=name,
        owner=name,
        division=Division.OPEN,
        spec=spec,
        prompt="p",
    )


def test_open_round_is_the_days_first_played_round(tmp_path: Path, sqlite_url: str) -> None:
    """W-DIV-1, W-RNK-1, W-RNK-4, W-SKP-1, W-RND-3: the Open turn is the day's first played
    round and Open is ranked once a day on it. An Open agent created at 15:30, or one whose
    prompt changed after the 15:00 read, is not asked at 16:00, and nobody who played at 15:00
    becomes unranked ("not in the latest ranked round") because of a later round."""
    eq = "baseline:equal_weight"
    specs = {"a": eq, "b": eq, "late": eq, "pro": eq}
    clock = ReplayClock(MONDAY)
    with open_store(sqlite_url) as store:
        season = _season(store, clock)
        ids = {n: _open(store, clock, season, n, eq) for n in ("a", "b")}
        ids["pro"] = _agent(store, clock, season, "pro", eq)
        runtime = _runtime(ids, specs)
        for day in range(4):  # Monday..Thursday: 15:00 and 16:00
            for h in (15, 16):
                _play(store, season, runtime, MONDAY + timedelta(days=day, hours=h))
        friday = MONDAY + timedelta(days=4)
        clock.set(friday + timedelta(hours=15, seconds=1))  # after the 15:00 read
        ops.change_prompt(store, clock, ops.load_season(store, season), ids["b"], "new")
        at15 = _play(store, season, runtime, friday + timedelta(hours=15))
        clock.set(friday + timedelta(hours=15, minutes=30))
        ids["late"] = _open(store, clock, season, "late", eq)
        runtime = _runtime(ids, specs)
        at16 = _play(store, season, runtime, friday + timedelta(hours=16))
        state = ops.load_season(store, season)

    def started(events: Sequence[Event]) -> Mapping[str, object]:
        return next(e.payload for e in events if e.kind == EventKind.ROUND_STARTED)

    def finished(events: Sequence[Event]) -> object:
        return next(e.payload["ranked"] for e in events if e.kind == EventKind.ROUND_FINISHED)

    assert started(at15)["open_round"] is True
    assert started(at15)["due"] == sorted([ids["a"], ids["b"], ids["pro"]])
    assert finished(at15) == ["open", "pro"]
    skipped = {str(e.payload["agent"]) for e in at15 if e.kind == EventKind.TURN_SKIPPED}
    assert skipped == {ids["b"]}  # changed after the read: skipped, its turn of the day
    assert started(at16)["open_round"] is False
    assert started(at16)["due"] == [ids["pro"]]  # neither "late" nor the re-due "b"
    assert finished(at16) == ["pro"]
    entries16 = {str(e.payload["agent"]) for e in at16 if "agent" in e.payload}
    assert entries16 == {ids["pro"]}
    assert state.ranked_rounds[Division.OPEN] == friday + timedelta(hours=15)
    assert state.ranked_rounds[Division.PRO] == friday + timedelta(hours=16)
    table = {row.agent: row for row in state.table(Division.OPEN)}
    assert {table[ids["a"]].rank, table[ids["b"]].rank} == {1, 2}
    assert table[ids["late"]].rank is None
    assert table[ids["late"]].unranked_reason is UnrankedReason.FEW_TRADING_DAYS
    assert state.agents[ids["late"]].entries == []  # waits for Monday's Open round
    assert [r.open_round for r in state.rounds] == [True, False] * 5


class _Hangs:
    """An agent that never answers."""

    name = "hangs"
    kind = "test"

    async def answer(self, turn: Turn) -> AgentReply:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


class _Raises:
    """An agent whose turn raises ``error``."""

    name = "raises"
    kind = "test"

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def answer(self, turn: Turn) -> AgentReply:
        raise self.error


def _one_round(sqlite_url: str, agent: Agent, config: RoundConfig) -> list[Event]:
    clock = ReplayClock(MONDAY)
    hour = MONDAY + timedelta(hours=15)
    with open_store(sqlite_url) as store:
        season = _season(store, clock)
        agent_id = _agent(store, clock, season, "x", "baseline:cash")
        state = ops.load_season(store, season)
        return asyncio.run(
            play_round(
                state,
                FixedSource(PRICES),
                {agent_id: agent},
                hour,
                ReplayPacing(ReplayClock(hour)),
                config,
            )
        )


def test_a_hang_is_no_decision_timeout(sqlite_url: str) -> None:
    """W-VAL-8: an agent that does not answer in time (the league stops waiting at the
    call's timeout plus its grace) gets "No decision" with reason ``timeout``, not a
    league-fault skip (W-SKP-3)."""
    config = RoundConfig(params=CallParams(max_tokens=50, timeout_s=0.05), grace_s=0.05)
    events = _one_round(sqlite_url, _Hangs(), config)
    kinds = [e.kind for e in events]
    assert EventKind.TURN_SKIPPED not in kinds
    made = next(e for e in events if e.kind == EventKind.NO_DECISION_MADE)
    assert made.payload["reason_code"] == "timeout"
    assert made.payload["outcome"] == "timeout"
    assert made.payload["latency_ms"] == 100


def tmp_path_url(url: str) -> str:
    return url.replace(".db", "-2.db")


def test_only_the_replay_miss_class_stops_a_round(sqlite_url: str) -> None:
    """W-SKP-3, C-5: a replay that cannot answer (``ReplayMissed`` or a subclass) stops the
    round; any other exception, even one with the same class name, is a league fault: the
    turn is skipped and logged."""

    class StrictMiss(ReplayMissed):
        pass

    miss = ReplayMiss(key=CallKey("x", "r", "a", 0), reason=MissReason.NOT_RECORDED, detail="test")
    with pytest.raises(StrictMiss):
        _one_round(sqlite_url, _Raises(StrictMiss(miss)), RoundConfig())
    impostor = type("ReplayMissed", (RuntimeError,), {})
    events = _one_round(tmp_path_url(sqlite_url), _Raises(impostor()), RoundConfig())
    skipped = next(e for e in events if e.kind == EventKind.TURN_SKIPPED)
    assert skipped.payload["reason_code"] == "league_fault"
    assert skipped.payload["fault"] == "ReplayMissed"
