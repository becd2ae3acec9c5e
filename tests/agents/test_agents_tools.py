"""The tool-using agent: read-only tools, then an answer, each step recorded (T-AGT-2, C-5)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from tradeleague.agents.base import Agent, Turn
from tradeleague.agents.llm import ReplayMissed
from tradeleague.agents.tools import Tool, ToolBox, ToolsAgent
from tradeleague.calls import Message, Outcome
from tradeleague.errors import ConfigError
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.records import CallRecord
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault

ANSWER = '{"direction": "up", "rationale": "rising closes"}'
CLOSES = [100, 101, 103]


def _tool_call(call_id: str, name: str, args: object) -> dict[str, Any]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


def _box() -> ToolBox:
    return ToolBox(_box_tools())


def _box_tools() -> list[Tool]:
    def candles(args: Mapping[str, Any]) -> object:
        return {"closes": CLOSES[-int(args.get("n", 3)) :]}

    def boom(args: Mapping[str, Any]) -> object:
        raise RuntimeError("no data")

    return [
        Tool(
            name="candles",
            description="The last n closes.",
            run=candles,
            parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
        ),
        Tool(name="boom", description="Always fails.", run=boom),
    ]


def _agent(gw: Any, **kw: Any) -> ToolsAgent:
    return ToolsAgent(
        name="t1", model="tm", provider="openrouter", gateway=gw, toolbox=_box(), **kw
    )


async def test_tools_agent_calls_tools_then_answers(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], turn: Callable[..., Turn]
) -> None:
    """T-AGT-2: tools are offered, run and fed back natively (an assistant message with
    ``tool_calls``, then one ``tool`` message per call); each step is its own recorded call.
    The exact request bodies of both steps are checked as the server received them."""
    gw, log = gateway
    calls = (
        _tool_call("c1", "candles", {"n": 2}),
        _tool_call("c2", "boom", {}),
        _tool_call("c3", "nope", {}),
        _tool_call("c4", "candles", "{not json"),
    )
    fake.enqueue("tm", Behaviour(text="", tool_calls=calls), Behaviour(text=ANSWER))
    agent = _agent(gw)
    assert isinstance(agent, Agent)
    reply = await agent.answer(turn("t1"))
    assert reply.outcome is Outcome.ANSWERED
    assert reply.text == ANSWER
    assert [r.key.turn for r in reply.records] == [0, 1]
    assert reply.records == tuple(log)
    assert reply.latency_ms == sum(r.elapsed_ms for r in reply.records)
    first, second = fake.requests_for("tm")
    definitions = [t.definition() for t in (_box_tools())]
    prompt = [
        {"role": "system", "content": "You trade."},
        {"role": "user", "content": "Up or down?"},
    ]
    assert first.body == {
        "model": "tm",
        "messages": prompt,
        "temperature": 0.3,
        "max_tokens": 320,
        "tools": definitions,
        "reasoning": {"enabled": False},
    }
    left_s = reply.records[1].params.timeout_s
    assert left_s == (10_000 - reply.records[0].elapsed_ms) / 1000  # the one deadline, shared
    tool_messages = [
        {"role": "tool", "tool_call_id": "c1", "content": '{"result":{"closes":[101,103]}}'},
        {"role": "tool", "tool_call_id": "c2", "content": '{"error":"RuntimeError: no data"}'},
        {
            "role": "tool",
            "tool_call_id": "c3",
            "content": json.dumps(
                {"error": "unknown tool 'nope'; tools: candles, boom"}, separators=(",", ":")
            ),
        },
    ]
    assert second.body["messages"][:-1] == [
        *prompt,
        {"role": "assistant", "content": None, "tool_calls": list(calls)},
        *tool_messages,
    ]
    last = second.body["messages"][-1]
    assert last["tool_call_id"] == "c4"
    assert json.loads(last["content"])["error"].startswith("arguments are not JSON")
    assert second.body["tools"] == definitions
    # the server read the same native messages back; the record holds them too
    assert second.messages[2] == Message("assistant", "", tool_calls=calls)
    assert [m.tool_call_id for m in second.messages[3:]] == ["c1", "c2", "c3", "c4"]
    assert reply.records[1].messages == second.messages
    assert reply.records[0].tool_calls == calls
    assert reply.records[0].finish_reason == "tool_calls"


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
    # the last request still carries the earlier steps natively: 2 x (assistant + tool)
    assert [m["role"] for m in requests[2].body["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    assert reply.outcome is Outcome.ANSWERED
    assert reply.text is None  # content null beside tool calls: nothing to parse


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
    assert [m.role for m in replayed.records[1].messages][-2:] == ["assistant", "tool"]
    # the tool messages are part of the request a replay checks: other results, no answer
    other = ToolsAgent(
        name="t1",
        model="tm",
        provider="openrouter",
        gateway=ReplayGateway(RecordedAnswers(log)),
        toolbox=ToolBox([replace(t, run=lambda args: [0]) for t in _box_tools()]),
    )
    with pytest.raises(ReplayMissed, match=r"/t1/1: request_differs \(.*messages"):
        await other.answer(turn("t1"))


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


def test_tools_box_bounds_the_models_arguments(deep_stack: None) -> None:
    """Tool arguments are the model's text: parsed with the untrusted-JSON bounds, so a
    document nested 70,000 deep is an error the model reads (never a crash of the turn,
    even with the recursion limit raised), and a lone surrogate reaches no tool."""
    seen: list[Mapping[str, Any]] = []

    def echo(args: Mapping[str, Any]) -> object:
        seen.append(args)
        return 1

    box = ToolBox([Tool(name="echo", description="", run=echo)])
    deep = box.run(_tool_call("c", "echo", '{"n": ' + "[" * 70_000 + "]" * 70_000 + "}"))
    assert deep["error"] == "arguments are not JSON: the document nests deeper than 64 levels"
    assert seen == []
    assert box.run(_tool_call("c", "echo", '{"s": "\\ud800"}'))["result"] == 1
    assert seen == [{"s": "\ufffd"}]
    bad = box.run(_tool_call("c", "echo", "{not json"))["error"]
    assert bad == "arguments are not JSON: Expecting property name enclosed in double quotes"
