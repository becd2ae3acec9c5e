"""Answer schemas and the grammars built from them (W-ASK-2, W-VAL-1..4, W-VAL-6, D-ASK-3, C-6)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.llm.grammar import (
    UnsupportedSchema,
    direction_answer_schema,
    schema_to_gbnf,
    schema_to_regex,
    weights_answer_schema,
)

UNIVERSE = ("AAPL", "BRK.B", "GLD", "MSFT", "SPY", "TLT")
WEIGHTS_RE = re.compile(schema_to_regex(weights_answer_schema(UNIVERSE)))
DIRECTION_RE = re.compile(schema_to_regex(direction_answer_schema()))


def _is_weights_answer(answer: Any) -> bool:
    """The shape and bounds the grammar promises (not the engine's full check)."""
    if not (isinstance(answer, dict) and list(answer) == ["targets", "reason"]):
        return False
    targets, reason = answer["targets"], answer["reason"]
    if not (isinstance(targets, dict) and isinstance(reason, str)):
        return False
    weights = [Decimal(str(v)) for v in targets.values() if not isinstance(v, bool)]
    return (
        set(targets) <= set(UNIVERSE)
        and len(weights) == len(targets)
        and all(0 <= w <= 100 and w == w.quantize(Decimal("0.01")) for w in weights)
        and 1 <= len(reason) <= 240
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(WEIGHTS_RE, fullmatch=True))
def test_local_every_weights_grammar_string_is_a_weights_answer(text: str) -> None:
    """W-VAL-1..4, W-VAL-6: whatever the grammar lets the model write parses into the shape."""
    assert _is_weights_answer(json.loads(text))


@settings(max_examples=200, deadline=None)
@given(st.from_regex(DIRECTION_RE, fullmatch=True))
def test_local_every_direction_grammar_string_is_a_direction_answer(text: str) -> None:
    """D-ASK-3: the grammar admits only {"direction": up|down, "rationale": 1-280 chars}."""
    answer = json.loads(text)
    assert list(answer) == ["direction", "rationale"]
    assert answer["direction"] in ("up", "down")
    assert isinstance(answer["rationale"], str)
    assert 1 <= len(answer["rationale"]) <= 280


percents = st.decimals(min_value=0, max_value=100, places=2, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    targets=st.dictionaries(st.sampled_from(UNIVERSE), percents),
    reason=st.text(min_size=1, max_size=240),
    separators=st.sampled_from([(",", ":"), (", ", ": ")]),
)
def test_local_weights_grammar_admits_every_wellformed_answer(
    targets: dict[str, Decimal], reason: str, separators: tuple[str, str]
) -> None:
    """W-ASK-2: a well-formed answer (keys in universe order) is never refused by the grammar."""
    ordered = {s: targets[s] for s in UNIVERSE if s in targets}
    body = (
        "{"
        + separators[0].join(
            f"{json.dumps(s)}{separators[1]}{w.normalize():f}" for s, w in ordered.items()
        )
        + "}"
    )
    comma, colon = separators
    text = f'{{"targets"{colon}{body}{comma}"reason"{colon}{json.dumps(reason)}}}'
    assert WEIGHTS_RE.fullmatch(text), text


@pytest.mark.parametrize(
    "text",
    [
        '{"targets": {"MSFT": 100.5}, "reason": "x"}',
        '{"targets": {"MSFT": 05}, "reason": "x"}',
        '{"targets": {"MSFT": -1}, "reason": "x"}',
        '{"targets": {"MSFT": 1.005}, "reason": "x"}',
        '{"targets": {"MSFT": 1e2}, "reason": "x"}',
        '{"targets": {"NVDA": 10}, "reason": "x"}',
        '{"targets": {"MSFT": 5, "AAPL": 3}, "reason": "x"}',
        '{"targets": {"MSFT": 5, "MSFT": 3}, "reason": "x"}',
        '{"targets": {}, "reason": ""}',
        '{"reason": "x", "targets": {}}',
        '{"targets": {}, "reason": "x", "extra": 1}',
        ' {"targets": {}, "reason": "x"}',
        '{"targets": {}, "reason": "x"} ok',
        '```json\n{"targets": {}, "reason": "x"}\n```',
    ],
)
def test_local_weights_grammar_refuses_malformed_answers(text: str) -> None:
    """W-VAL-1..4, W-VAL-6: the grammar does not admit what the engine would reject on format."""
    assert WEIGHTS_RE.fullmatch(text) is None


@pytest.mark.parametrize(
    "text",
    [
        '{"targets": {}, "reason": "all cash"}',
        '{"targets": {"AAPL": 40, "BRK.B": 0.5, "TLT": 59.5}, "reason": "x"}',
        '{"targets":{"SPY":100.00},"reason":"x"}',
        '{\n  "targets": {\n    "GLD": 12.34\n  },\n  "reason": "a \\"quoted\\" word"\n}',
    ],
)
def test_local_weights_grammar_admits_valid_answers(text: str) -> None:
    """W-ASK-2: ordinary answers, compact or pretty-printed, are admitted."""
    assert WEIGHTS_RE.fullmatch(text)
    assert _is_weights_answer(json.loads(text))


def test_local_gbnf_is_linear_in_the_universe() -> None:
    """W-ASK-2: a large universe gives a grammar that grows linearly, with one rule per symbol."""
    small = schema_to_gbnf(weights_answer_schema([f"S{i}" for i in range(50)]))
    large = schema_to_gbnf(weights_answer_schema([f"S{i}" for i in range(500)]))
    assert small.startswith("root ::= ")
    assert len(large) < 12 * len(small)
    assert large.count('"\\"S499\\""') <= 3


def test_local_gbnf_escapes_keys_and_shares_rules() -> None:
    """W-ASK-2: symbols are literal JSON keys, and identical rules are written once."""
    gbnf = schema_to_gbnf(weights_answer_schema(['A"B', "C"]))
    assert '"\\"A\\\\\\"B\\""' in gbnf
    assert gbnf.count('::= "100"') == 1


def test_local_schema_builders_reject_bad_universes() -> None:
    """W-VAL-3: a universe must name distinct, non-empty symbols."""
    for symbols in ([], ["A", "A"], ["A", ""]):
        with pytest.raises(ValueError):
            weights_answer_schema(symbols)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "string"}},
        {"anyOf": [{"type": "string"}]},
        {"type": "object", "properties": {}},
        {"type": "number", "minimum": 5},
        {"type": "number", "minimum": 0, "maximum": 50},
        {"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 0.25},
        {"type": "string", "pattern": "^a$"},
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["b"],
            "additionalProperties": False,
        },
    ],
)
def test_local_unsupported_schema_is_reported(schema: dict[str, Any]) -> None:
    """C-6: a schema the converter cannot honour exactly is refused, not approximated."""
    with pytest.raises(UnsupportedSchema):
        schema_to_gbnf(schema)


def test_local_general_subset_numbers_and_optional_members() -> None:
    """C-6: optional members may be omitted in order; unbounded numbers are plain JSON numbers."""
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "boolean"},
            "c": {"type": "number", "minimum": 0},
            "d": {"const": None},
        },
        "required": ["b"],
        "additionalProperties": False,
    }
    pattern = re.compile(schema_to_regex(schema))
    for ok in ('{"b":true}', '{"a":-3,"b":false,"c":0.125}', '{"b":true,"d":null}'):
        assert pattern.fullmatch(ok), ok
    for bad in ("{}", '{"a":1}', '{"b":true,"a":1}', '{"b":true,"c":-1}', '{"a":1.5,"b":true}'):
        assert pattern.fullmatch(bad) is None, bad
