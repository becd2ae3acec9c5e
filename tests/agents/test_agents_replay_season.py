"""Recorded-answer replay reproduces a season exactly (C-5, C-2, C-6, T-AGT-1, T-AGT-2).

A small direction-style season (a tiny in-test format: up/down answers settled
as binary options) runs live against the fake provider with LLM agents that
answer, answer in prose, hang, get rejected and fail, a tool-using agent, an
inverse agent, a scripted agent and baselines. Every model call is written as a
``ModelCalled`` event. The season is then re-run with the answers loaded from
the store, the fake server stopped, and must give identical decisions, fills
and ranks.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.inverse import InverseAgent, SharedAgent, invert_direction_answer
from tradeleague.agents.llm import LlmAgent
from tradeleague.agents.recorded import load_recorded_answers, store_recorder
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.agents.tools import Tool, ToolBox, ToolsAgent
from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.clock import WallClock
from tradeleague.events import Event, EventKind
from tradeleague.llm.gateway import Gateway, ModelGateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallKey
from tradeleague.llm.replay import ReplayGateway
from tradeleague.money import Usd, usd
from tradeleague.sim.binary import BinaryOption, Direction, place
from tradeleague.stats.binary_scores import ArenaTally, hit_rate, roi
from tradeleague.store import Store, open_store
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest
from tradeleague.testing.fake_script import Behaviour, Fault

SEASON = "replay-season"
KEY = "sk-replay-test-0000"
PARAMS = CallParams(temperature=0.3, max_tokens=320, timeout_s=2.0)
"""Only the hung model meets the deadline; every other answers however loaded the machine."""
PRICES = [usd(100), usd(101), usd(99), usd(99), usd(104), usd(103)]
START = usd(50_000)
STAKE = usd(10)
T0 = datetime(2026, 1, 5, 15, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Decision:
    round: int
    agent: str
    outcome: str
    direction: str | None
    reason: str | None
    latency_ms: int


@dataclass(frozen=True, slots=True)
class Fill:
    round: int
    agent: str
    direction: str
    entry: Usd
    exit: Usd
    pnl: Usd
    balance: Usd


def _parse(reply: AgentReply) -> tuple[str | None, str | None]:
    """The tiny format's one validation path: dig out a JSON object, direction exactly."""
    if reply.outcome is not Outcome.ANSWERED:
        return None, reply.outcome.value
    text = reply.text or ""
    start = text.find("{")
    while start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and value.get("direction") in ("up", "down"):
            return str(value["direction"]), None
        return None, "invalid"
    return None, "invalid"


def _render(direction: str | None) -> str:
    return json.dumps({"direction": direction, "rationale": "rule"})


def _messages(r: int) -> tuple[Message, ...]:
    closes = ", ".join(str(p // 1_000_000) for p in PRICES[: r + 1])
    return (
        Message("system", "Answer with JSON: direction up or down, and a rationale."),
        Message("user", f"Round {r}. Closes so far: {closes}. Up or down?"),
    )


def _tools(turn: Turn) -> ToolBox:
    r = int(turn.key.round[1:])
    closes = [p // 1_000_000 for p in PRICES[: r + 1]]
    return ToolBox([Tool(name="closes", description="Closes so far.", run=lambda a: closes)])


def _roster(gateway: ModelGateway, script: Path) -> list[Agent]:
    def llm(name: str, model: str) -> LlmAgent:
        return LlmAgent(name=name, model=model, provider="openrouter", gateway=gateway)

    coin = random.Random(7)
    trend = SharedAgent(llm("trend", "trend-model"))
    return [
        trend,
        llm("chatty", "prose-model"),
        llm("sleepy", "hang-model"),
        llm("locked", "rejected-model"),
        llm("flaky", "flaky-model"),
        ToolsAgent(
            name="digger", model="tool-model", provider="openrouter", gateway=gateway,
            toolbox=_tools,
        ),
        InverseAgent(name="reverse-trend", source=trend, inverter=invert_direction_answer),
        ScriptedAgent.from_file("script", script),
        BaselineAgent("always-up", lambda view: "up", _render),
        BaselineAgent("coin", lambda view: coin.choice(["up", "down"]), _render),
    ]  # fmt: skip


def _script_fake(fake: FakeProvider) -> None:
    def trend(request: ReceivedRequest) -> str:
        closes = re.findall(r"\d+", request.messages[-1].content.split(":")[1])
        rising = len(closes) < 2 or int(closes[-1]) >= int(closes[-2])
        return json.dumps({"direction": "up" if rising else "down", "rationale": "trend"})

    fake.respond_with("trend-model", trend)
    fake.script_model(
        "prose-model", Behaviour(text='{"direction": "down", "rationale": "r"}', fault=Fault.PROSE)
    )
    fake.script_model("hang-model", Behaviour(fault=Fault.HANG))
    fake.script_model("rejected-model", Behaviour(fault=Fault.UNAUTHORIZED))
    flaky = [
        Behaviour(text='{"direction": "up"}', latency_s=0.05),
        Behaviour(fault=Fault.SERVER_ERROR),
        Behaviour(text="Up, probably."),
        Behaviour(fault=Fault.RATE_LIMITED),
        Behaviour(text='{"direction": "down"}'),
    ]
    fake.enqueue("flaky-model", *flaky)
    call = {"id": "c1", "type": "function", "function": {"name": "closes", "arguments": "{}"}}
    for r in range(len(PRICES) - 1):
        fake.enqueue(
            "tool-model",
            Behaviour(text="", tool_calls=(call,)),
            Behaviour(text=json.dumps({"direction": "up" if r % 2 else "down"})),
        )


async def _season(
    gateway: ModelGateway, store: Store, script: Path
) -> tuple[list[Decision], list[Fill], list[str]]:
    agents = _roster(gateway, script)
    balances = {a.name: START for a in agents}
    tallies = {a.name: [0, 0, 0, 0] for a in agents}  # wins, losses, draws, skips
    decisions: list[Decision] = []
    fills: list[Fill] = []
    clock = WallClock()
    for r in range(len(PRICES) - 1):
        turns = [
            Turn(
                format="tiny-direction",
                key=CallKey(SEASON, f"r{r}", a.name, 0),
                messages=_messages(r),
                params=PARAMS,
                view=r,
            )
            for a in agents
        ]
        replies = await asyncio.gather(*(a.answer(t) for a, t in zip(agents, turns, strict=True)))
        entry, exit_ = PRICES[r], PRICES[r + 1]
        for agent, reply in zip(agents, replies, strict=True):
            direction, reason = _parse(reply)
            decisions.append(
                Decision(r, agent.name, reply.outcome.value, direction, reason, reply.latency_ms)
            )
            kind = EventKind.DECISION_MADE if direction else EventKind.NO_DECISION_MADE
            payload = {"agent": agent.name, "round": r, "direction": direction, "reason": reason}
            store.append([Event.now(clock, SEASON, kind, payload)])
            if direction is None:
                tallies[agent.name][3] += 1
                continue
            option = BinaryOption(
                direction=Direction.from_answer(direction),
                stake=STAKE,
                entry_price=entry,
                expiry=T0 + timedelta(minutes=5 * (r + 1)),
            )
            settled = option.settle(exit_)
            balance = Usd(place(balances[agent.name], option) + settled.credit)
            balances[agent.name] = balance
            tallies[agent.name][("win", "loss", "draw").index(settled.outcome.value)] += 1
            fills.append(Fill(r, agent.name, direction, entry, exit_, settled.pnl, balance))
    ranked = sorted(
        agents,
        key=lambda a: (
            -roi(_tally(balances[a.name], tallies[a.name])),
            -(hit_rate(_tally(balances[a.name], tallies[a.name])) or Fraction(-1)),
            -balances[a.name],
            a.name,
        ),
    )
    return decisions, fills, [a.name for a in ranked]


def _tally(balance: Usd, counts: Sequence[int]) -> ArenaTally:
    wins, losses, draws, skips = counts
    return ArenaTally(
        balance=balance, baseline=START, wins=wins, losses=losses, draws=draws, skips=skips
    )


def _count(decisions: Sequence[Decision], **where: Any) -> int:
    return sum(all(getattr(d, k) == v for k, v in where.items()) for d in decisions)


async def test_agents_replay_reproduces_the_season(db_url: str, tmp_path: Path) -> None:
    """C-5: re-run from recorded answers, the season's decisions, fills and ranks are identical,
    and no model is called."""
    script = tmp_path / "script.jsonl"
    script.write_text(
        "\n".join(
            json.dumps(line)
            for line in (
                {"text": '{"direction": "down"}'},
                {"outcome": "timeout", "latency_ms": 45000},
                {"text": '```json\n{"direction": "up"}\n```'},
            )
        ),
        encoding="utf-8",
    )
    with open_store(db_url) as store:
        async with FakeProvider(require_key=KEY) as fake:
            _script_fake(fake)
            provider = OpenAICompatProvider(
                preset("openrouter").with_base_url(fake.url), environ={"OPENROUTER_API_KEY": KEY}
            )
            recorder = store_recorder(store, stream=SEASON, clock=WallClock())
            async with Gateway([provider], recorder=recorder) as live:
                decisions, fills, ranks = await _season(live, store, script)
            asked_live = len(fake.requests)
        # the fake server is stopped: any live call now would fail, not answer

        answers = load_recorded_answers(store, SEASON)
        replayed: list[Any] = []
        replay = ReplayGateway(answers, recorder=replayed.append)
        again = await _season(replay, store, script)

    assert again == (decisions, fills, ranks)
    # the season exercised what it claims: answers, prose, faults, tools, mirror, script
    assert asked_live == len(replayed) > 0
    assert len(answers) == 5 * (5 + 2)  # five one-call LLM agents and two tool steps a round
    for outcome in ("timeout", "key_rejected", "provider_error", "rate_limited"):
        assert _count(decisions, outcome=outcome) > 0, outcome
    assert _count(decisions, agent="chatty", direction="down") == 5  # dug out of prose
    assert _count(decisions, agent="flaky", reason="invalid") == 1  # never guessed
    trend = [d.direction for d in decisions if d.agent == "trend"]
    mirror = [d.direction for d in decisions if d.agent == "reverse-trend"]
    assert mirror == [{"up": "down", "down": "up"}[t] for t in trend if t]
    assert [d.direction for d in decisions if d.agent == "digger"] == ["down", "up"] * 2 + ["down"]
    assert _count(decisions, agent="script", reason="provider_error") == 2  # exhausted
    assert {f.agent for f in fills} >= {"trend", "always-up", "coin", "digger", "script"}
    assert len(set(ranks)) == len(ranks) == 10
