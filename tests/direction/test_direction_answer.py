"""Reading answers: lenient extraction, strict direction (D-ASK-3, C-6, C-10, D-SKP-1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.formats.direction.answer import (
    MAX_RATIONALE,
    Answer,
    Invalid,
    InvalidReason,
    parse_answer,
)

UP = '{"direction": "up", "rationale": "Higher lows on the last ten candles."}'
DOWN = '{"direction": "down", "rationale": "Rejected at the session high twice."}'
NJ, ND, CO, BD = (
    InvalidReason.NO_JSON_OBJECT,
    InvalidReason.NO_DIRECTION,
    InvalidReason.CONFLICTING_OBJECTS,
    InvalidReason.BAD_DIRECTION,
)

# (raw answer, expected direction or the invalid reason)
CASES: list[tuple[str | None, str | InvalidReason]] = [
    (UP, "up"),
    (DOWN, "down"),
    (f"```json\n{UP}\n```", "up"),
    (f"```\n{DOWN}\n```", "down"),
    (f"Sure! After looking at the data, here is my answer:\n{UP}\nGood luck!", "up"),
    (f"Looking at momentum... {DOWN} That's my call.", "down"),
    ('{"direction":"up","rationale":"x"}', "up"),
    ('{\n  "direction": "down",\n  "rationale": "Lower highs."\n}', "down"),
    ('{"rationale": "Volume fading.", "direction": "down"}', "down"),
    ('{"direction": "up", "rationale": "Bounce.", "confidence": 0.7}', "up"),
    ('{"direction": "up"}', "up"),
    ('{"direction": "down", "rationale": null}', "down"),
    (f"{UP}\n{UP}", "up"),
    ('Thinking: {"note": "range-bound"} Final: {"direction": "down", "rationale": "r"}', "down"),
    ('{"direction": "up", "rationale": "Use {braces} freely."}', "up"),
    ("\u200b" + UP, "up"),
    (f"{UP}\n{DOWN}", CO),
    ('{"direction": "UP", "rationale": "Strong trend."}', BD),
    ('{"direction": "Up", "rationale": "Strong trend."}', BD),
    ('{"direction": "DOWN"}', BD),
    ('{"direction": " up", "rationale": "x"}', BD),
    ('{"direction": "neutral", "rationale": "Too close to call."}', BD),
    ('{"direction": "sideways", "rationale": "Flat."}', BD),
    ('{"direction": null, "rationale": "Unsure."}', BD),
    ('{"direction": 1, "rationale": "x"}', BD),
    ('{"direction": ["up"], "rationale": "x"}', BD),
    ('{"direction": "up or down", "rationale": "Coin flip."}', BD),
    ("I'm sorry, but I can't help with making trading decisions.", NJ),
    ("up", NJ),
    ("Direction: up. Rationale: higher lows.", NJ),
    ('{"direction": "up", "rationale": "Higher lows', NJ),
    ("{'direction': 'up', 'rationale': 'single quotes'}", NJ),
    ('{"direction": "up", "rationale": "x",}', NJ),
    ("", NJ),
    (None, NJ),
    ('{"call": "up", "rationale": "Wrong key."}', ND),
    ('{"Direction": "up", "rationale": "Capital key."}', ND),
    ('[{"direction": "up"}]', "up"),
    ('{"answer": {"direction": "up"}}', ND),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_direction_parser_table(text: str | None, expected: str | InvalidReason) -> None:
    """D-ASK-3: at least 30 real-looking answers; only exact "up"/"down" counts."""
    parsed = parse_answer(text)
    if isinstance(expected, InvalidReason):
        assert isinstance(parsed, Invalid)
        assert parsed.reason is expected
    else:
        assert isinstance(parsed, Answer)
        assert parsed.direction == expected


def test_direction_parser_table_is_big_enough() -> None:
    """D-ASK-3: the table holds at least 30 answers, both valid and invalid."""
    assert len(CASES) >= 30
    assert sum(isinstance(e, InvalidReason) for _, e in CASES) >= 15


def test_direction_rationale_is_cut_at_280_and_flagged() -> None:
    """D-ASK-3, C-10: a long rationale is shown at 280 characters, invisible characters gone."""
    long = "a\u200d" * 300
    parsed = parse_answer(f'{{"direction": "down", "rationale": "{long}"}}')
    assert isinstance(parsed, Answer)
    assert parsed.rationale == "a" * MAX_RATIONALE
    assert parsed.rationale_truncated
    short = parse_answer(UP)
    assert isinstance(short, Answer)
    assert not short.rationale_truncated


@given(st.text(max_size=200))
def test_direction_parser_never_guesses(noise: str) -> None:
    """D-ASK-3, C-6: whatever the text, a direction is read only from a JSON object."""
    parsed = parse_answer(noise)
    if isinstance(parsed, Answer):
        assert "{" in noise
        assert "}" in noise
