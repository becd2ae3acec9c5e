"""The house model answers for itself: never the prompt's placeholder as its reason (issue 25).

The weights prompt shows the answer as ``{"targets": {...}, "reason": "ONE
SENTENCE"}`` and SmolLM2 copied ``ONE SENTENCE`` in every round of the demo.
Its wrapper reads the placeholders out of the messages and its grammar refuses
a free-text field that opens as one does; the prompt and the answer checks stay
as the rules say (W-ASK-1, C-6).
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime
from fractions import Fraction

import pytest

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.formats.direction.prompt import ANSWER_SCHEMA as DIRECTION_SCHEMA
from tradeleague.formats.direction.prompt import SYSTEM_PROMPT
from tradeleague.formats.weights import WeightsPreset, answer_schema
from tradeleague.formats.weights.prompt import AskFacts, SymbolLine, build_messages
from tradeleague.llm.grammar import schema_to_regex
from tradeleague.llm.local import (
    HOUSE_TEXT_MAX_CHARS,
    LocalProvider,
    house_schema,
    placeholder_openings,
    prompt_placeholders,
)
from tradeleague.llm.types import ChatRequest

SYMBOLS = ("AAPL", "GLD", "MSFT", "SPY", "TLT")


def _weights_messages(day: int) -> tuple[Message, ...]:
    lines = [
        SymbolLine(s, (100 + 37 * i + day) * 10**6, {1: Fraction(i - 2, 100), 5: None, 20: None})
        for i, s in enumerate(SYMBOLS)
    ]
    facts = AskFacts(
        time=datetime(2025, 6, day, 15, tzinfo=UTC),
        lines=lines,
        halted=frozenset(),
        value=10_000 * 10**6,
        weights={},
        prompt="Follow momentum: hold what went up most.",
    )
    return build_messages(facts, WeightsPreset())


def test_local_the_prompts_placeholders_are_found() -> None:
    """W-ASK-1: the seed prompts' example values are what the wrapper reads as placeholders."""
    schema = answer_schema(SYMBOLS)
    assert prompt_placeholders(_weights_messages(2), schema) == ("ONE SENTENCE",)
    direction = prompt_placeholders((Message("system", SYSTEM_PROMPT),), DIRECTION_SCHEMA)
    assert direction == ("<one short sentence>", "one short sentence")
    assert prompt_placeholders(_weights_messages(2), None) == ()


def test_local_the_house_grammar_refuses_a_placeholder_reason() -> None:
    """C-6: the grammar the house model answers under admits no reason that opens as the
    placeholder does (in any case), bounds the reason, and admits a reason of its own."""
    schema = answer_schema(SYMBOLS)
    banned = placeholder_openings(prompt_placeholders(_weights_messages(2), schema))
    assert banned == ("ON",)
    language = re.compile(schema_to_regex(house_schema(schema), banned=banned))

    def admits(reason: str) -> bool:
        text = json.dumps({"targets": {"SPY": 40}, "reason": reason}, separators=(",", ":"))
        return language.fullmatch(text) is not None

    for copied in ("ONE SENTENCE", "One sentence.", "ONE SENTENCAL", "one"):
        assert not admits(copied), copied
    assert admits("Momentum favours SPY and GLD.")
    assert admits("O")
    assert not admits("x" * (HOUSE_TEXT_MAX_CHARS + 1))


@pytest.mark.slow
def test_local_house_model_writes_its_own_reason() -> None:
    """Issue 25: asked the weights league's real prompt, the house model's reason is never
    the placeholder; the answer is whole JSON (the bounded reason closes it in time)."""
    provider = LocalProvider(n_threads=2)
    schema = answer_schema(SYMBOLS)

    async def ask(day: int) -> str | None:
        request = ChatRequest(
            model="house",
            messages=_weights_messages(day),
            params=CallParams(temperature=0.3, max_tokens=200),
            json_schema=schema,
        )
        reply = await provider.complete(request, None)
        assert reply.outcome is Outcome.ANSWERED, reply.error
        return reply.text

    for day in (2, 3):
        text = asyncio.run(ask(day))
        assert text is not None
        reason = json.loads(text)["reason"]
        assert not reason.lower().startswith("on"), reason
        assert "one sentence" not in reason.lower(), reason
