"""Exact resume of agents with sequential state, by one mechanism for every kind (C-4).

After a restart the engine builds each agent fresh and calls ``resume_agent``
with the turns the record says it took; the next answers are then those of an
uninterrupted run.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from tradeleague.agents.base import AgentReply, Resumable, Turn, resume_agent
from tradeleague.agents.baselines import CoinFlip, WeightsView
from tradeleague.agents.inverse import InverseAgent, SharedAgent, invert_direction_answer
from tradeleague.agents.scripted import ScriptedAgent, parse_script
from tradeleague.calls import CallParams
from tradeleague.league.weights.agents import build_agents
from tradeleague.llm.records import CallKey
from tradeleague.money import usd

SYMBOLS = ("AAA", "BBB", "CCC", "DDD")


def _view() -> WeightsView:
    return WeightsView(
        time=datetime(2026, 1, 5, 15, tzinfo=UTC),
        symbols=SYMBOLS,
        prices={s: usd(10) for s in SYMBOLS},
        history={s: (usd(10),) for s in SYMBOLS},
        cash=usd(1_000),
    )


def _turn(view: object | None = None, agent: str = "a") -> Turn:
    return Turn(
        format="weights", key=CallKey("s", "r", agent), messages=(), params=CallParams(), view=view
    )


def test_coin_flip_resumed_continues_its_draws() -> None:
    """A coin flip resumed after 7 turns answers turn 8 on as an uninterrupted one."""
    whole = CoinFlip(seed=11)
    answers = [whole.decide(_view()) for _ in range(12)]
    resumed = CoinFlip(seed=11)
    resume_agent(resumed, 7)
    resume_agent(resumed, 7)  # idempotent: the roster and a mirror may both resume it
    assert [resumed.decide(_view()) for _ in range(5)] == answers[7:]
    assert isinstance(resumed, Resumable)


def test_weights_baseline_agent_resumes_its_rule() -> None:
    """The agent built from ``baseline:coin_flip`` passes the resume down to its rule."""
    specs = ["coin=baseline:coin_flip"]
    _, whole, _ = build_agents(specs, gateway=object(), seed=5)  # type: ignore[arg-type]
    _, fresh, _ = build_agents(specs, gateway=object(), seed=5)  # type: ignore[arg-type]

    async def answers(agent: object, n: int) -> list[str | None]:
        out: list[str | None] = []
        for _ in range(n):
            reply: AgentReply = await agent.answer(_turn(_view()))  # type: ignore[attr-defined]
            out.append(reply.text)
        return out

    expected = asyncio.run(answers(whole["coin"], 9))
    resume_agent(fresh["coin"], 4)
    assert asyncio.run(answers(fresh["coin"], 5)) == expected[4:]


def test_scripted_agent_and_wrappers_resume_to_the_next_line() -> None:
    """Scripted files, shared and mirrored, continue at the line after the turns played."""
    lines = parse_script(
        [f'{{"text": "{{\\"direction\\": \\"{d}\\"}}"}}' for d in ["up", "down", "up", "down"]]
    )
    source = SharedAgent(ScriptedAgent(name="s", lines=lines))
    mirror = InverseAgent(name="m", source=source, inverter=invert_direction_answer)
    resume_agent(source, 2)
    resume_agent(mirror, 2)
    assert isinstance(source.agent, ScriptedAgent)
    assert source.agent.played == 2
    reply = asyncio.run(mirror.answer(_turn(agent="m")))
    assert reply.text == '{"direction": "down"}'


def test_agents_without_state_are_left_alone() -> None:
    """Nothing to resume: an agent without ``resume`` is untouched, and 0 turns is a no-op."""
    agent = ScriptedAgent(name="s", lines=parse_script(['{"text": "x"}']))
    resume_agent(agent, 0)
    assert agent.played == 0
    resume_agent(object(), 3)
