"""Untrusted input: bounded JSON, storable text, the recursion limit kept after imports,
and any status, body and headers from a provider ending a round (fault containment).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.agents.base import MAX_LATENCY_MS, AgentReply, Turn
from tradeleague.agents.llm import LlmAgent
from tradeleague.agents.scripted import parse_script
from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.answer import Invalid, parse_answer
from tradeleague.formats.direction.board import Board
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.weights import WeightsPreset
from tradeleague.formats.weights.answer import NoDecision, NoDecisionCode, validate_answer
from tradeleague.league.direction import Contestant, replay_direction
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset as preset_named
from tradeleague.market import synthetic_dataset
from tradeleague.store import Store, open_store
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.untrusted import (
    JSONProblem,
    UntrustedJSON,
    clean_text,
    is_blank,
    loads,
    nesting_within,
)

DEEP = "[" * 70_000 + "]" * 70_000
ARENA_START = datetime(2025, 9, 1, 6, 0, tzinfo=UTC)
ARENA = synthetic_dataset(
    1, 24 * 60, seed=11, bar_size=timedelta(minutes=1), calendar="24/7",
    start=datetime(2025, 9, 1, tzinfo=UTC), symbols=["BTCUSDT"],
    start_price=100_000_000_000,  # type: ignore[arg-type]
    volatility=0.6,
)  # fmt: skip
SRC = Path(__file__).resolve().parents[1] / "src"


def test_importing_the_cli_and_site_keeps_the_recursion_limit() -> None:
    """py_ecc (through web3) raises the limit on import; tradeleague puts it back."""
    code = (
        "import sys; before = sys.getrecursionlimit()\n"
        "import tradeleague.cli, tradeleague.site, tradeleague.feeds.chainlink, web3\n"
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


_HEADER_NAMES = st.sampled_from(
    ["content-length", "content-encoding", "transfer-encoding", "retry-after", "content-type",
     "connection", "x-ratelimit-reset"]
)  # fmt: skip
_HEADER_VALUES = st.integers(-(10**30), 10**30).map(str) | st.text(
    st.characters(min_codepoint=32, max_codepoint=255, blacklist_characters="\x7f"), max_size=40
)


class _AlwaysUp:
    """The control: a round needs a trade that settles, or it is void for everyone."""

    name = "control"
    kind = "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        text = '{"direction": "up", "rationale": "Always up."}'
        return AgentReply(outcome=Outcome.ANSWERED, text=text, latency_ms=1_000)


@pytest.fixture(scope="module")
def provider() -> Iterator[FakeProvider]:
    """One fake provider for every example; each example sets the model's raw reply."""
    with FakeProvider() as fake:
        yield fake


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    status=st.sampled_from([200, 201, 204, 301, 400, 401, 404, 413, 429, 500, 502, 503]),
    body=st.binary(max_size=300) | st.sampled_from([DEEP.encode(), b'{"choices": ' * 5000]),
    headers=st.dictionaries(_HEADER_NAMES, _HEADER_VALUES, max_size=3),
)
def test_any_provider_status_body_and_headers_end_the_round(
    provider: FakeProvider, status: int, body: bytes, headers: dict[str, str], deep_stack: None
) -> None:
    """C-7: whatever bytes and headers a provider sends, a model's round finishes.

    A real model agent calls the fake provider over HTTP through the gateway;
    the provider answers with arbitrary status, body and headers (a lying
    Content-Length, a bogus Content-Encoding or Retry-After...). The round
    ends, the model's turn is a trade or a skip with its class (never a league
    fault), and every event is in the store.
    """
    provider.respond_raw("m", status, body, headers)
    asked = len(provider.requests_for("m"))
    preset = replace(DirectionPreset(), window=timedelta(seconds=1))

    async def play(store: Store) -> Board:
        upstream = OpenAICompatProvider(
            preset_named("openrouter").with_base_url(provider.url),
            environ={"OPENROUTER_API_KEY": "sk-test-not-a-key"},
        )
        async with Gateway([upstream]) as gateway:
            model = LlmAgent(name="x", model="m", provider="openrouter", gateway=gateway)
            entrant = Entrant(name="x", provider="p", tier="TOP", model="p/x")
            control = Entrant(name="control", provider="p", tier="TOP", model="p/control")
            roster = [
                Contestant(entrant=entrant, agent=model),
                Contestant(entrant=control, agent=_AlwaysUp()),
            ]
            end = ARENA_START + timedelta(minutes=5)
            return await replay_direction(
                store, ARENA, roster, start=ARENA_START, end=end, preset=preset
            )

    with (
        tempfile.TemporaryDirectory() as folder,
        open_store(f"sqlite:///{Path(folder) / 'd.db'}") as store,
    ):
        board = asyncio.run(play(store))
        logged = [s.event for s in store.events("direction")]
    kinds = [e.kind for e in logged]
    assert kinds.count("RoundStarted") == kinds.count("RoundFinished") == 1
    (row,) = [r for r in board.models if r.entrant.name == "x"]
    assert len(provider.requests_for("m")) > asked, "the model was asked over HTTP"
    calls: list[Any] = [e.payload["record"] for e in logged if e.kind == "ModelCalled"]
    assert calls, "the model's call is in the record"
    for call in calls:  # each an outcome; a fault carries its error text
        assert Outcome(call["outcome"]) is Outcome.ANSWERED or call["error"]
    assert "league_fault" not in row.skips
    tally = row.tally
    assert tally.wins + tally.losses + tally.draws + sum(row.skips.values()) == 1
