"""Validation of answers, in the published order (W-VAL-1..9, W-ASK-2, C-6)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.calls import Outcome
from tradeleague.formats.weights import (
    Decision,
    NoDecision,
    NoDecisionCode,
    WeightsPreset,
    counts_toward_pause,
    no_decision_for,
    render_answer,
    validate_answer,
)

SYMBOLS = frozenset({"SPY", "QQQ", "SGOV", "USO", "AAPL"})
P = WeightsPreset()


def code(text: str | None) -> NoDecisionCode | None:
    out = validate_answer(text, SYMBOLS, P)
    return out.code if isinstance(out, NoDecision) else None


def test_valid_answer_is_a_decision() -> None:
    """W-ASK-2: target weights per symbol and one sentence of reason."""
    out = validate_answer('{"targets": {"SPY": 25, "QQQ": 12.5}, "reason": "Tilt."}', SYMBOLS, P)
    assert isinstance(out, Decision)
    assert dict(out.targets) == {"SPY": 2500, "QQQ": 1250}
    assert out.reason == "Tilt."


@pytest.mark.parametrize(
    "text",
    [
        'Sure! {"targets": {}, "reason": "x"}',
        '{"targets": {}, "reason": "x"} thanks',
        '```json\n{"targets": {}, "reason": "x"}\n```',
        "[1, 2]",
        "",
        '{"targets": {"SPY": 1, "SPY": 2}, "reason": "x"}',
        '{"targets": {"SPY": NaN}, "reason": "x"}',
    ],
)
def test_format_first(text: str) -> None:
    """W-VAL-1: the whole answer is one JSON object, nothing before or after it."""
    assert code(text) is NoDecisionCode.NOT_IN_FORMAT


def test_none_text_is_not_in_format() -> None:
    """W-VAL-1: no text at all fails the first check."""
    assert code(None) is NoDecisionCode.NOT_IN_FORMAT


@pytest.mark.parametrize(
    "text",
    [
        '{"targets": {}}',
        '{"targets": {}, "reason": "x", "confidence": 1}',
        '{"targets": [], "reason": "x"}',
        '{"targets": {}, "reason": 3}',
    ],
)
def test_exactly_two_parts(text: str) -> None:
    """W-VAL-2: exactly the targets and the reason."""
    assert code(text) is NoDecisionCode.NOT_TWO_PARTS


def test_unknown_symbol() -> None:
    """W-VAL-3: every target names a league symbol."""
    assert code('{"targets": {"BTC": 10}, "reason": "x"}') is NoDecisionCode.UNKNOWN_SYMBOL


@pytest.mark.parametrize("weight", ['"10"', "true", "-1", "100.01", "10.001", "null", "[1]"])
def test_bad_weight(weight: str) -> None:
    """W-VAL-4: a number from 0% to 100% with at most two decimal places."""
    text = f'{{"targets": {{"SPY": {weight}}}, "reason": "x"}}'
    assert code(text) is NoDecisionCode.BAD_WEIGHT


@pytest.mark.parametrize("weight", ["0", "100", "33.33", "1e1", "12.50"])
def test_good_weights(weight: str) -> None:
    """W-VAL-4: boundaries and exponents that are whole hundredths pass."""
    assert code(f'{{"targets": {{"SPY": {weight}}}, "reason": "x"}}') is None


def test_sum_over_100() -> None:
    """W-VAL-5: the weights add up to no more than 100%."""
    text = '{"targets": {"SPY": 40, "QQQ": 40, "USO": 20.01}, "reason": "x"}'
    assert code(text) is NoDecisionCode.OVER_100
    assert code('{"targets": {"SPY": 40, "QQQ": 40, "USO": 20}, "reason": "x"}') is None


@pytest.mark.parametrize("reason", ['""', '"   "'])
def test_empty_reason(reason: str) -> None:
    """W-VAL-6: the reason is not empty."""
    assert code(f'{{"targets": {{}}, "reason": {reason}}}') is NoDecisionCode.EMPTY_REASON


def test_order_of_checks() -> None:
    """W-VAL-1..6 run in order: the first failure is the one reported (C-6)."""
    both = '{"targets": {"BTC": 200}, "reason": ""}'
    assert code(both) is NoDecisionCode.UNKNOWN_SYMBOL
    weight_and_reason = '{"targets": {"SPY": 200}, "reason": ""}'
    assert code(weight_and_reason) is NoDecisionCode.BAD_WEIGHT
    sum_and_reason = '{"targets": {"SPY": 60, "QQQ": 60}, "reason": ""}'
    assert code(sum_and_reason) is NoDecisionCode.OVER_100


def test_cap_and_truncation_after_checks() -> None:
    """W-VAL-7: a weight above 40% is cut to 40%; a reason over 240 characters is cut."""
    long = "a" * 300
    out = validate_answer(
        json.dumps({"targets": {"SPY": 90, "QQQ": 0}, "reason": long}), SYMBOLS, P
    )
    assert isinstance(out, Decision)
    assert dict(out.targets) == {"SPY": 4000}
    assert out.capped == ("SPY",)
    assert len(out.reason) == 240
    assert out.reason_cut


@pytest.mark.parametrize(
    ("outcome", "expected", "pauses"),
    [
        (Outcome.KEY_REJECTED, NoDecisionCode.KEY_REJECTED, True),
        (Outcome.MODEL_NOT_FOUND, NoDecisionCode.MODEL_REJECTED, True),
        (Outcome.KEY_UNREADABLE, NoDecisionCode.KEY_UNREADABLE, True),
        (Outcome.PROVIDER_ERROR, NoDecisionCode.PROVIDER_ERROR, False),
        (Outcome.RATE_LIMITED, NoDecisionCode.PROVIDER_ERROR, False),
        (Outcome.TIMEOUT, NoDecisionCode.TIMEOUT, False),
    ],
)
def test_provider_outcomes(outcome: Outcome, expected: NoDecisionCode, pauses: bool) -> None:
    """W-VAL-8 maps each fault to "No decision"; W-VAL-9 counts key and model rejections."""
    out = no_decision_for(outcome)
    assert out is not None
    assert out.code is expected
    assert counts_toward_pause(out.code) is pauses


def test_answered_is_not_a_fault() -> None:
    """W-VAL-8: an answered call goes on to validation."""
    assert no_decision_for(Outcome.ANSWERED) is None


@given(
    st.dictionaries(
        st.sampled_from(sorted(SYMBOLS)), st.integers(min_value=0, max_value=2_000), max_size=5
    )
)
def test_render_answer_round_trips(targets: dict[str, int]) -> None:
    """W-ASK-2, C-2: a baseline's rendered answer passes the same validator unchanged."""
    out = validate_answer(render_answer(targets, "Rule."), SYMBOLS, P)
    assert isinstance(out, Decision)
    assert dict(out.targets) == {s: b for s, b in targets.items() if b}
