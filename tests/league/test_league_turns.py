"""The one turn machinery every format shares (C-2, C-5, C-7, W-VAL-8, W-SKP-3, D-SKP-1).

``take_turn`` asks one agent under a hard deadline and turns every ending into
a value; the pacing hands turns on as they end (live) or in latency order
(replay). Both formats use these and nothing else to ask an agent.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.llm import LlmAgent, ReplayMissed
from tradeleague.calls import CallParams, Outcome
from tradeleague.clock import ReplayClock, WallClock
from tradeleague.league.pacing import LivePacing, ReplayPacing
from tradeleague.league.turns import TakenTurn, TurnFault, take_turn, timeout_reply
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.records import CallKey, CallRecord, MissReason, ReplayMiss
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway

SRC = Path(__file__).resolve().parents[2] / "src" / "tradeleague"
TURN = Turn(format="test", key=CallKey("S", "r", "a"), messages=(), params=CallParams())


class _Answers:
    kind = "test"

    def __init__(self, name: str, latency_ms: int, wait_s: float = 0.0) -> None:
        self.name, self.latency_ms, self.wait_s = name, latency_ms, wait_s

    async def answer(self, turn: Turn) -> AgentReply:
        await asyncio.sleep(self.wait_s)
        return AgentReply(outcome=Outcome.ANSWERED, text=self.name, latency_ms=self.latency_ms)


class _Raises:
    name, kind = "raises", "test"

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def answer(self, turn: Turn) -> AgentReply:
        raise self.error


async def test_c7_a_raising_agent_is_a_fault_with_no_invented_reply() -> None:
    """C-7, D-SKP-1, W-SKP-3: an agent that raises is the league's fault; no provider outcome
    is made up for it."""
    got = await take_turn(_Raises(KeyError("boom")), TURN, 1.0)
    assert isinstance(got, TurnFault)
    assert got.fault == "KeyError"
    assert "league fault, not the model's" in got.detail
    assert "boom" in got.detail


async def test_w_val_8_a_hang_is_a_timeout_at_the_deadline() -> None:
    """W-VAL-8: no answer by the hard deadline is a timeout whose latency is the deadline."""
    got = await take_turn(_Answers("slow", 5, wait_s=10), TURN, 0.05)
    assert isinstance(got, AgentReply)
    assert got.outcome is Outcome.TIMEOUT
    assert got.latency_ms == 50
    assert got.text is None
    assert timeout_reply(45).latency_ms == 45_000


async def test_c5_a_replay_miss_stays_loud() -> None:
    """C-5: a replay that cannot answer from its record stops the round (it propagates)."""
    miss = ReplayMiss(key=TURN.key, reason=MissReason.NOT_RECORDED, detail="t")
    with pytest.raises(ReplayMissed):
        await take_turn(_Raises(ReplayMissed(miss)), TURN, 1.0)


def test_a_taken_turn_has_a_reply_or_a_fault() -> None:
    reply = AgentReply(outcome=Outcome.ANSWERED, text="x", latency_ms=3)
    assert TakenTurn(0, reply=reply).latency_ms == 3
    assert TakenTurn(1, fault=TurnFault(ValueError())).latency_ms == 0
    with pytest.raises(ValueError, match="never both or neither"):
        TakenTurn(2)
    with pytest.raises(ValueError, match="never both or neither"):
        TakenTurn(3, reply=reply, fault=TurnFault(ValueError()))


async def test_c11_replay_hands_turns_on_in_latency_order_ties_by_ask_order() -> None:
    """C-11: in replay, turns come in the order their answers would have arrived."""
    clock = ReplayClock(datetime(2026, 1, 5, tzinfo=UTC))
    asks: list[tuple[Agent, Turn]] = [
        (_Answers("late", 900), TURN),
        (_Raises(RuntimeError("x")), TURN),
        (_Answers("early", 10), TURN),
        (_Answers("tie", 10), TURN),
    ]
    got = [t async for t in ReplayPacing(clock).turns(asks, timedelta(seconds=5))]
    assert [t.index for t in got] == [1, 2, 3, 0]
    assert got[0].fault is not None
    assert [t.reply.text for t in got[1:] if t.reply is not None] == ["early", "tie", "late"]


class _Blind:
    """A prompt-blind agent that notes which task asked it."""

    def __init__(self, name: str, kind: str, latency_ms: int, seen: dict[str, object]) -> None:
        self.name, self.kind, self.latency_ms, self.seen = name, kind, latency_ms, seen

    async def answer(self, turn: Turn) -> AgentReply:
        self.seen[self.name] = asyncio.current_task()
        return AgentReply(outcome=Outcome.ANSWERED, text=self.name, latency_ms=self.latency_ms)


async def test_replay_asks_prompt_blind_agents_without_a_task_each() -> None:
    """C-11 (issue 16): baselines and scripts are asked in the round's own task, models each in
    a task of their own, and the turns still come in latency order, ties by roster place."""
    clock = ReplayClock(datetime(2026, 1, 5, tzinfo=UTC))
    seen: dict[str, object] = {}
    asks: list[tuple[Agent, Turn]] = [
        (_Blind("model-late", "llm", 700, seen), TURN),
        (_Blind("base", "baseline", 0, seen), TURN),
        (_Blind("script", "scripted", 700, seen), TURN),
        (_Blind("model-early", "llm", 5, seen), TURN),
        (_Raises(RuntimeError("x")), TURN),
    ]
    here = asyncio.current_task()
    got = [t async for t in ReplayPacing(clock).turns(asks, timedelta(seconds=5))]
    assert [t.index for t in got] == [1, 4, 3, 0, 2]
    assert seen["base"] is here
    assert seen["script"] is here
    assert seen["model-late"] is not here
    assert seen["model-early"] is not here
    assert seen["model-late"] is not seen["model-early"]


def _record(turn: Turn, text: str, latency_ms: int) -> CallRecord:
    """A recorded answer to ``turn`` by model ``m`` of provider ``p``."""
    return CallRecord(
        key=turn.key, attempt=0, final=True, provider="p", model="m", messages=turn.messages,
        params=turn.params, json_schema=None, tools=(), outcome=Outcome.ANSWERED, text=text,
        tool_calls=(), finish_reason="stop", http_status=200, error=None, prompt_tokens=None,
        completion_tokens=None, cost_micros=None, asked_at=datetime(2026, 1, 5, tzinfo=UTC),
        queued_ms=0, latency_ms=latency_ms, elapsed_ms=latency_ms,
    )  # fmt: skip


async def test_replay_asks_models_answering_from_a_record_without_a_task_each() -> None:
    """Issue 16: a model replayed from its recorded calls (``--replay-answers``) never waits on a
    provider, so it is asked in the round's own task, as a baseline is; the turns still come in
    latency order, and a model whose gateway is live keeps a task of its own."""
    clock = ReplayClock(datetime(2026, 1, 5, tzinfo=UTC))
    first, second = (Turn(format="test", key=CallKey("S", "r", a), messages=(),
                          params=CallParams()) for a in ("m1", "m2"))  # fmt: skip
    tasks: list[object] = []
    gateway = ReplayGateway(
        RecordedAnswers([_record(first, "slow", 900), _record(second, "fast", 20)]),
        recorder=lambda _record: tasks.append(asyncio.current_task()),
    )
    recorded = [LlmAgent(name=a, model="m", provider="p", gateway=gateway) for a in ("m1", "m2")]
    assert all(agent.answers_from_record for agent in recorded)
    live = LlmAgent(name="live", model="m", provider="p", gateway=Gateway([]))
    assert not live.answers_from_record
    seen: dict[str, object] = {}
    asks: list[tuple[Agent, Turn]] = [
        (recorded[0], first),
        (_Blind("model-live", "llm", 500, seen), TURN),
        (recorded[1], second),
    ]
    here = asyncio.current_task()
    got = [t async for t in ReplayPacing(clock).turns(asks, timedelta(seconds=5))]
    assert [t.index for t in got] == [2, 1, 0]
    assert [t.reply.text for t in got if t.reply is not None] == ["fast", "model-live", "slow"]
    assert tasks == [here, here]
    assert seen["model-live"] is not here


async def test_c11_live_hands_turns_on_as_they_end_under_one_deadline() -> None:
    """C-11, D-RND-3: live, each turn is handed on when it ends; a hang becomes a timeout."""
    asks: list[tuple[Agent, Turn]] = [
        (_Answers("hangs", 1, wait_s=30), TURN),
        (_Answers("quick", 1, wait_s=0.0), TURN),
    ]
    got = [t async for t in LivePacing(WallClock()).turns(asks, timedelta(seconds=0.2))]
    assert [t.index for t in got] == [1, 0]
    assert got[1].reply is not None
    assert got[1].reply.outcome is Outcome.TIMEOUT


def test_c2_no_format_module_keeps_its_own_ask_or_deadline_code() -> None:
    """C-2: agents are asked only through league/turns.py; no format times out or calls
    ``answer`` itself."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == "league/turns.py" or rel.startswith(("agents/", "testing/", "llm/")):
            continue
        text = path.read_text(encoding="utf-8")
        asks = re.search(r"\.answer\(", text)
        waits = rel.startswith(("league/", "formats/")) and re.search(
            r"asyncio\.(timeout|wait_for)\(", text
        )
        if asks or waits:
            offenders.append(rel)
    assert offenders == []
