"""The scripted agent: JSONL answers in order, simulated faults, clear errors (C-4, C-6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.agents.base import Agent, Turn
from tradeleague.agents.scripted import ScriptedAgent, parse_script
from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError


async def test_scripted_plays_lines_in_order_then_is_exhausted(
    tmp_path: Path, turn: Callable[..., Turn]
) -> None:
    """C-4: each turn gets the next line's raw text, latency and outcome, unchanged."""
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"text": "{\\"direction\\": \\"up\\"}"}\n'
        "\n"
        '{"text": "  prose, not JSON ", "latency_ms": 31000}\n'
        '{"outcome": "timeout", "latency_ms": 45000}\n',
        encoding="utf-8",
    )
    agent = ScriptedAgent.from_file("s", path)
    assert isinstance(agent, Agent)
    replies = [await agent.answer(turn("s", round=f"r{i}")) for i in range(5)]
    assert [(r.outcome, r.text, r.latency_ms) for r in replies] == [
        (Outcome.ANSWERED, '{"direction": "up"}', 0),
        (Outcome.ANSWERED, "  prose, not JSON ", 31000),
        (Outcome.TIMEOUT, None, 45000),
        (Outcome.PROVIDER_ERROR, None, 0),
        (Outcome.PROVIDER_ERROR, None, 0),
    ]
    assert agent.exhausted
    assert replies[3].error == replies[4].error == "script exhausted"
    assert replies[2].error is None
    assert agent.played == 5
    assert all(r.records == () for r in replies)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "a"}\n{"text": "b"\n', "line 2: not JSON"),
        ('{"text": "a"}\n\n["text"]\n', "line 3: expected a JSON object"),
        ('{"txt": "a"}\n', "line 1: unknown key"),
        ('{"text": "a", "outcome": "late"}\n', "line 1: unknown outcome 'late'; valid: answered"),
        ('{"outcome": "answered"}\n', 'line 1: an answered line needs a "text"'),
        ('{"outcome": "timeout", "text": "x"}\n', "line 1: a 'timeout' line carries no text"),
        ('{"text": 3}\n', "line 1: text must be a string"),
        ('{"text": "a", "latency_ms": -1}\n', "line 1: latency_ms must be a whole number"),
        ('{"text": "a", "latency_ms": 1.5}\n', "line 1: latency_ms must be a whole number"),
        ("\n\n", "holds no answers"),
    ],
)
def test_scripted_malformed_file_names_the_line(tmp_path: Path, content: str, message: str) -> None:
    """A malformed script fails when loaded, naming the file and line."""
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        ScriptedAgent.from_file("s", path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_scripted_missing_file_is_a_config_error(tmp_path: Path) -> None:
    """A script that cannot be read is a ConfigError naming the path."""
    with pytest.raises(ConfigError, match="cannot read script"):
        ScriptedAgent.from_file("s", tmp_path / "nope.jsonl")


@given(st.lists(st.text(), min_size=1, max_size=8))
def test_scripted_round_trips_any_text(texts: list[str]) -> None:
    """C-4: any text written as a JSONL line is played back exactly."""
    lines = [json.dumps({"text": t}) for t in texts]
    assert [line.text for line in parse_script(lines)] == texts
