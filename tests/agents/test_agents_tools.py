"""The tool-using agent: read-only tools, then an answer, each step recorded (T-AGT-2, C-5)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from tradeleague.agents.base import Agent, Turn
from tradeleague.agents.tools import TOOL_RESULTS_PREFIX, Tool, ToolBox, ToolsAgent
from tradeleague.errors import ConfigError
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.records import CallRecord
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.llm.types import Outcome
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault

ANSWER = '{"direction": "up", "rationale": "rising closes"}'
CLOSES = [100, 101, 103]


def _tool_call(call_id: str, name: str, args: object) -> dict[str, Any]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


def _box() -> ToolBox:
    def candles(args: Mapping[str, Any]) -> object:
        return {"closes": CLOSES[-int(args.get("n", 3)) :]}

    def boom(args: Mapping[str, Any]) -> object:
        raise RuntimeError("no data")

    return ToolBox(
        [
            Tool(
                name="candles",
                description="The last n closes.",
                run=candles,
                parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
            ),
            Tool(name="boom", description="Always fails.", run=boom),
        ]
    )


def _agent(gw: Any, **kw: Any) -> ToolsAgent:
    return ToolsAgent(
        name="t1", model="tm", provider="openrouter", gateway=gw, toolbox=_box(), **kw
    )


async def test_tools_agent_calls_tools_then_answers(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """T-AGT-2: tools are offered, run, fed back; each step is its own recorded call."""
    gw, log = gateway
    fake.enqueue(
        "tm",
        Behaviour(
            text="",
            tool_calls=(
                _tool_call("c1", "candles", {"n": 2}),
                _tool_call("c2", "boom", {}),
                _tool_call("c3", "nope", {}),
                _tool_call("c4", "candles", "{not json"),
            ),
        ),
        Behaviour(text=ANSWER),
    )
    agent = _agent(gw)
    assert isinstance(agent, Agent)
    reply = await agent.answer(turn("t1"))
    assert reply.outcome is Outcome.ANSWERED
    assert reply.text == ANSWER
    assert [r.key.turn for r in reply.records] == [0, 1]
    assert reply.records == tuple(log)
    assert reply.latency_ms == sum(r.elapsed_ms for r in reply.records)
    first, second = fake.requests_for("tm")
    assert [t["function"]["name"] for t in first.body["tools"]] == ["candles", "boom"]
    assert first.body["temperature"] == second.body["temperature"] == 0.3
    fed_back = second.messages[-1].content
    assert fed_back.startswith(TOOL_RESULTS_PREFIX)
    results = json.loads(fed_back[len(TOOL_RESULTS_PREFIX) :])
    assert results[0] == {"id": "c1", "name": "candles", "result": {"closes": [101, 103]}}
    assert results[1]["error"] == "RuntimeError: no data"
    assert results[2]["error"].startswith("unknown tool 'nope'")
    assert results[3]["error"].startswith("arguments are not JSON")
    assert json.loads(second.messages[-2].content)["tool_calls"][0]["id"] == "c1"
    # later steps share the one deadline: what is left of the window
    assert reply.records[1].params.timeout_s < reply.records[0].params.timeout_s


async def test_tools_agent_steps_are_bounded(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """T-AGT-2: at most ``max_steps`` calls; the last offers no tools, and a model that
    still calls tools answers with no text (the format rejects it, C-6)."""
    gw, _ = gateway
    looping = Behaviour(text="", tool_calls=(_tool_call("c", "candles", {}),))
    fake.script_model("tm", looping)
    reply = await _agent(gw, max_steps=3).answer(turn("t1"))
    requests = fake.requests_for("tm")
    assert len(requests) == len(reply.records) == 3
    assert ["tools" in r.body for r in requests] == [True, True, False]
    assert reply.outcome is Outcome.ANSWERED
    assert reply.text == ""


async def test_tools_agent_token_budget_makes_the_next_step_last(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """T-AGT-2: once the steps used the token budget, the next step is the last."""
    gw, _ = gateway
    fake.enqueue(
        "tm",
        Behaviour(text="", tool_calls=(_tool_call("c", "candles", {}),), completion_tokens=500),
        Behaviour(text=ANSWER),
    )
    reply = await _agent(gw, max_steps=5, max_total_tokens=100).answer(turn("t1"))
    assert reply.text == ANSWER
    assert ["tools" in r.body for r in fake.requests_for("tm")] == [True, False]


async def test_tools_agent_fault_ends_the_turn(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """W-VAL-8: a fault at any step is the turn's outcome, with the steps so far recorded."""
    gw, _ = gateway
    fake.enqueue(
        "tm",
        Behaviour(text="", tool_calls=(_tool_call("c", "candles", {}),)),
        Behaviour(fault=Fault.SERVER_ERROR),
    )
    reply = await _agent(gw).answer(turn("t1"))
    assert reply.outcome is Outcome.PROVIDER_ERROR
    assert reply.text is None
    assert [r.outcome for r in reply.records] == [Outcome.ANSWERED, Outcome.PROVIDER_ERROR]


async def test_tools_agent_replays_every_step(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """C-5, T-AGT-2: a replay answers each step from the record, tools run again alike."""
    gw, log = gateway
    fake.enqueue(
        "tm",
        Behaviour(text="", tool_calls=(_tool_call("c1", "candles", {"n": 1}),), latency_s=0.02),
        Behaviour(text=ANSWER),
    )
    live = await _agent(gw).answer(turn("t1"))
    replayed = await _agent(ReplayGateway(RecordedAnswers(log))).answer(turn("t1"))
    assert replayed == live
    assert len(fake.requests) == 2


def test_tools_box_rejects_duplicates_and_bad_names() -> None:
    """Tool names are unique and safe for the protocol; bounds are at least 1."""
    tool = Tool(name="a", description="", run=lambda args: 1)
    with pytest.raises(ConfigError, match="two tools"):
        ToolBox([tool, tool])
    with pytest.raises(ConfigError, match="tool name"):
        Tool(name="a b", description="", run=lambda args: 1)
    with pytest.raises(ConfigError, match="max_steps"):
        ToolsAgent(
            name="t",
            model="m",
            provider="p",
            gateway=ReplayGateway(RecordedAnswers([])),
            toolbox=ToolBox([]),
            max_steps=0,
        )
    big = ToolBox(
        [Tool(name="big", description="", run=lambda args: "x" * 50)], max_result_chars=10
    )
    assert "too large" in big.run(_tool_call("c", "big", {}))["error"]
