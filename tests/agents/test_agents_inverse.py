"""The inverse meta-agent mirrors another agent's decision (T-AGT-1, C-6, D-ASK-3)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.inverse import (
    InverseAgent,
    SharedAgent,
    invert_direction_answer,
    invert_json_field,
)
from tradeleague.agents.scripted import ScriptedAgent, ScriptLine
from tradeleague.calls import Outcome


@pytest.mark.parametrize(
    ("text", "inverted"),
    [
        ('{"direction": "up", "rationale": "r"}', '{"direction": "down", "rationale": "r"}'),
        ('{"direction":"down"}', '{"direction": "up"}'),
        (
            'Sure! ```json\n{"rationale": "dip", "direction": "up"}\n``` ok',
            'Sure! ```json\n{"rationale": "dip", "direction": "down"}\n``` ok',
        ),
        ('{bad {"direction": "up"}', '{bad {"direction": "down"}'),
    ],
)
def test_inverse_direction_swaps_up_and_down(text: str, inverted: str) -> None:
    """T-AGT-1: up <-> down in the answer's JSON object, the text around it untouched."""
    assert invert_direction_answer(text) == inverted


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I'm sorry, but I can't help with making trading decisions.",
        '{"direction": "Up"}',
        '{"direction": "sideways"}',
        '{"rationale": "no direction"}',
        '["up"]',
        '{"direction": ["up"]}',
    ],
)
def test_inverse_direction_cannot_invert_an_invalid_answer(text: str) -> None:
    """C-6, D-ASK-3: what is not exactly up or down is not guessed at."""
    assert invert_direction_answer(text) is None


@given(st.sampled_from(["up", "down"]), st.text(max_size=30), st.text(max_size=20))
def test_inverse_twice_is_identity(direction: str, rationale: str, prose: str) -> None:
    """T-AGT-1: mirroring a mirror gives the original decision back."""
    text = prose.replace("{", "") + json.dumps({"direction": direction, "rationale": rationale})
    once = invert_direction_answer(text)
    assert once is not None
    assert json.loads(once[once.index("{") :])["direction"] != direction
    twice = invert_direction_answer(once)
    assert twice is not None
    assert json.loads(twice[twice.index("{") :]) == json.loads(text[text.index("{") :])


def test_inverse_long_short_and_asymmetric_pairs() -> None:
    """Formats with sides get their own inverter; a one-way mapping is refused."""
    assert invert_json_field("side", {"long": "short", "short": "long"})('{"side": "long"}') == (
        '{"side": "short"}'
    )
    with pytest.raises(ValueError, match="symmetric"):
        invert_json_field("side", {"long": "short"})


async def test_inverse_agent_mirrors_passes_through_and_keeps_faults(
    turn: Callable[..., Turn],
) -> None:
    """T-AGT-1, C-6: inverted where readable, unchanged where not, faults mirrored as-is."""
    source = ScriptedAgent(
        name="src",
        lines=(
            ScriptLine(text='{"direction": "up"}', latency_ms=1200),
            ScriptLine(text="no idea"),
            ScriptLine(outcome=Outcome.TIMEOUT, latency_ms=45000),
        ),
    )
    mirror = InverseAgent(name="rev", source=source, inverter=invert_direction_answer)
    assert isinstance(mirror, Agent)
    replies = [await mirror.answer(turn("rev", round=f"r{i}")) for i in range(3)]
    assert [(r.outcome, r.text, r.latency_ms) for r in replies] == [
        (Outcome.ANSWERED, '{"direction": "down"}', 1200),
        (Outcome.ANSWERED, "no idea", 0),
        (Outcome.TIMEOUT, None, 45000),
    ]


async def test_shared_agent_asks_the_source_once_per_call_key(turn: Callable[..., Turn]) -> None:
    """T-AGT-1: the roster and its mirror share one answer; the source is asked once."""
    asked: list[Turn] = []

    class Counting:
        name = "src"
        kind = "scripted"

        async def answer(self, t: Turn) -> AgentReply:
            asked.append(t)
            return AgentReply(outcome=Outcome.ANSWERED, text='{"direction": "up"}')

    shared = SharedAgent(Counting())
    mirror = InverseAgent(name="rev", source=shared, inverter=invert_direction_answer)
    own = await shared.answer(turn("src"))
    mirrored = await mirror.answer(turn("rev"))
    assert own.text == '{"direction": "up"}'
    assert mirrored.text == '{"direction": "down"}'
    assert [t.key.agent for t in asked] == ["src"]
    shared.forget("s1", "r1")
    await mirror.answer(turn("rev"))
    assert len(asked) == 2


def test_a_mirror_names_its_kept_reason_as_the_source_s() -> None:
    """T-AGT-1: a mirror that keeps the source's rationale says whose reason it was."""
    from tradeleague.agents.inverse import invert_json_field

    mirror = invert_json_field(
        "direction", {"up": "down", "down": "up"}, reason=("rationale", "Against m: ")
    )
    assert mirror('{"direction": "up", "rationale": "Rising."}') == (
        '{"direction": "down", "rationale": "Against m: Rising."}'
    )
    assert mirror('{"direction": "up"}') == '{"direction": "down"}'  # no reason to mark
    assert mirror('{"direction": "up", "rationale": 3}') == '{"direction": "down", "rationale": 3}'
