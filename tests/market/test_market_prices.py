"""Decimal text to exact micro-units (SPEC W-EXE-7 spirit: no floats in prices)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.market.prices import decimal_text_to_micros


@pytest.mark.parametrize(
    ("text", "micros"),
    [
        ("72.2715", 72_271_500),
        ("108246.36", 108_246_360_000),
        ("3019717963.0", 3_019_717_963_000_000),
        ("15", 15_000_000),
        ("0.000001", 1),
        (".5", 500_000),
        ("1e-05", 10),
        ("0.0046716", 4_672),  # 4671.6 micro: rounds half-even up
        ("0.0000025", 2),  # exact half: to the even micro
        ("0.0000035", 4),
        (" 7.5 ", 7_500_000),
    ],
)
def test_decimal_text_to_micros_is_exact(text: str, micros: int) -> None:
    assert decimal_text_to_micros(text) == micros


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "nan", "inf", "1,5", "--1"])
def test_non_numbers_are_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        decimal_text_to_micros(text)


@given(st.decimals(min_value=0, max_value=10**9, allow_nan=False, allow_infinity=False, places=9))
def test_matches_decimal_half_even(value: Decimal) -> None:
    """The fast path and the Decimal path agree with half-even rounding everywhere."""
    expected = int(value.quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN) * 1_000_000)
    assert decimal_text_to_micros(format(value, "f")) == expected


@given(st.lists(st.decimals(min_value=0, max_value=10**6, places=8), min_size=2, max_size=2))
def test_rounding_preserves_order(pair: list[Decimal]) -> None:
    """Monotone rounding keeps high >= close etc. after conversion."""
    a, b = sorted(pair)
    assert decimal_text_to_micros(format(a, "f")) <= decimal_text_to_micros(format(b, "f"))
