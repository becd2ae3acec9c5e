"""A baseline answers as text through the format's one validation path (C-2, C-6, T-AGT-1)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

from tradeleague.agents import EqualWeight, WeightsView
from tradeleague.agents.base import Agent, Turn
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.calls import Outcome
from tradeleague.money import usd


def _render(weights: dict[str, int] | None) -> str:
    return json.dumps({"weights": weights, "reason": "rule"}, sort_keys=True)


async def test_baseline_agent_renders_its_decision(turn: Callable[..., Turn]) -> None:
    """T-AGT-1: the baseline's decision arrives as answer text, at latency 0, with no calls."""
    view = WeightsView(
        time=datetime(2026, 1, 5, 15, tzinfo=UTC),
        symbols=("AAA", "BBB"),
        prices={"AAA": usd(10), "BBB": usd(20)},
        history={"AAA": [usd(10)], "BBB": [usd(20)]},
        cash=usd(1_000),
    )
    rule = EqualWeight()

    def decide(v: object) -> dict[str, int] | None:
        assert isinstance(v, WeightsView)
        return rule.decide(v)

    agent = BaselineAgent("equal_weight", decide, _render)
    assert isinstance(agent, Agent)
    assert agent.kind == "baseline"
    reply = await agent.answer(turn("equal_weight", view=view))
    assert reply.outcome is Outcome.ANSWERED
    assert reply.latency_ms == 0
    assert reply.records == ()
    assert json.loads(reply.text or "") == {
        "weights": {"AAA": 5_000, "BBB": 5_000},
        "reason": "rule",
    }


async def test_baseline_agent_renders_no_change(turn: Callable[..., Turn]) -> None:
    """A ``None`` decision (keep the portfolio) is rendered too, not skipped."""
    agent: BaselineAgent[dict[str, int]] = BaselineAgent("hold", lambda v: None, _render)
    reply = await agent.answer(turn("hold"))
    assert reply.text == _render(None)
