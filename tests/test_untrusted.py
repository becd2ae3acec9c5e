"""Untrusted input: bounded JSON, storable text, the recursion limit kept after imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.agents.base import MAX_LATENCY_MS, AgentReply
from tradeleague.agents.scripted import parse_script
from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.answer import Invalid, parse_answer
from tradeleague.formats.weights import WeightsPreset
from tradeleague.formats.weights.answer import NoDecision, NoDecisionCode, validate_answer
from tradeleague.untrusted import (
    JSONProblem,
    UntrustedJSON,
    clean_text,
    is_blank,
    loads,
    nesting_within,
)

DEEP = "[" * 70_000 + "]" * 70_000
SRC = Path(__file__).resolve().parents[1] / "src"


def test_importing_the_cli_and_site_keeps_the_recursion_limit() -> None:
    """py_ecc (through web3) raises the limit on import; tradeleague puts it back."""
    code = (
        "import sys; before = sys.getrecursionlimit()\n"
        "import tradeleague.cli, tradeleague.api.site, tradeleague.feeds.chainlink, web3\n"
        "assert sys.getrecursionlimit() == before, sys.getrecursionlimit()\n"
        "import json\n"
        "try:\n    json.loads('[' * 70000 + ']' * 70000)\n"
        "except RecursionError:\n    print('bounded')\n"
    )
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "bounded"


def test_deep_documents_are_refused_before_decoding(deep_stack: None) -> None:
    with pytest.raises(UntrustedJSON) as deep:
        loads(DEEP)
    assert deep.value.code is JSONProblem.TOO_DEEP
    with pytest.raises(UntrustedJSON) as large:
        loads("[1]", max_chars=2)
    assert large.value.code is JSONProblem.TOO_LARGE
    with pytest.raises(UntrustedJSON) as bad:
        loads(b"\xff\xfe\xfd")
    assert bad.value.code is JSONProblem.NOT_JSON
    assert loads('["[[[[", {"a": "]]}"}]') == ["[[[[", {"a": "]]}"}]


@settings(max_examples=200)
@given(st.recursive(st.none() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)))
def test_the_scan_agrees_with_the_decoder(value: object) -> None:
    """Brackets in strings never count; a value's real depth is what the scan sees."""
    import json

    text = json.dumps(value)

    def depth(v: object) -> int:
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0

    assert nesting_within(text, depth(value))
    if depth(value):
        assert not nesting_within(text, depth(value) - 1)


def test_text_is_made_storable() -> None:
    assert clean_text("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert clean_text("ok \U0001f600") == "ok \U0001f600"
    assert is_blank("\u200b\u200c\u2060\ufeff \n")
    assert not is_blank("\u200b x")


def test_agent_replies_are_storable_and_bounded() -> None:
    reply = AgentReply(outcome=Outcome.ANSWERED, text="\ud800", latency_ms=10**4000, error="\udc00")
    assert reply.text == "\ufffd"
    assert reply.error == "\ufffd"
    assert reply.latency_ms == MAX_LATENCY_MS


def test_weights_answers_hostile(deep_stack: None) -> None:
    """W-VAL-1, W-VAL-6: deep, surrogate-holding or invisible-reason answers get a code."""
    preset = WeightsPreset()
    symbols = {"SPY"}
    cases = {
        DEEP: NoDecisionCode.NOT_IN_FORMAT,
        '{"targets": {}, "reason": ' + DEEP + "}": NoDecisionCode.NOT_IN_FORMAT,
        '{"targets": {}, "reason": "\\ud800"}': NoDecisionCode.NOT_IN_FORMAT,
        '{"targets": {"\\udfff": 1}, "reason": "x"}': NoDecisionCode.NOT_IN_FORMAT,
        '{"targets": {}, "reason": "\u200b\u200b\u2060"}': NoDecisionCode.EMPTY_REASON,
        '{"targets": {"SPY": ' + "9" * 5000 + '}, "reason": "x"}': NoDecisionCode.NOT_IN_FORMAT,
        '{"targets": {"SPY": 1e999999}, "reason": "x"}': NoDecisionCode.BAD_WEIGHT,
        " " * 200_000: NoDecisionCode.NOT_IN_FORMAT,
    }
    for text, code in cases.items():
        result = validate_answer(text, symbols, preset)
        assert isinstance(result, NoDecision), text[:60]
        assert result.code is code, (text[:60], result)


def test_direction_answers_hostile(deep_stack: None) -> None:
    """D-ASK-3: deep objects are not read; surrogates in a rationale become U+FFFD."""
    deep = 'Sure. x" {"direction": "up", "a": ' + "[" * 70_000 + ' "'
    assert isinstance(parse_answer(deep), Invalid)
    assert isinstance(parse_answer("{" * 70_000), Invalid)
    assert isinstance(parse_answer("{" + DEEP), Invalid)
    read = parse_answer('{"direction": "down", "rationale": "a\\ud800"}')
    assert not isinstance(read, Invalid)
    assert read.rationale == "a\ufffd"


def test_scripted_lines_hostile(deep_stack: None) -> None:
    """A deep or out-of-range script line is a ConfigError naming the line, never a crash."""
    for line in (DEEP, '{"text": "x", "latency_ms": ' + "9" * 30 + "}", '{"text": "x"' * 70_000):
        with pytest.raises(ConfigError, match="line 1"):
            parse_script([line])
    (played,) = parse_script(['{"text": "\\ud800"}'])
    assert AgentReply(outcome=played.outcome, text=played.text).text == "\ufffd"
