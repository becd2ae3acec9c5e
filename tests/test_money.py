"""Exact money (W-EXE-7, W-SCO-2, ST-3)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.money import (
    Rounding,
    apply_rate,
    div_round,
    format_usd,
    micros_to_str,
    percent_2dp,
    qty,
    qty_for_value,
    round_half_up_2dp,
    usd,
    value_of,
)


def test_constructors_refuse_floats_and_excess_places() -> None:
    """W-EXE-7: amounts are whole millionths; a float never enters accounting."""
    assert usd("2000.00") == 2_000_000_000
    assert usd(Decimal("0.000001")) == 1
    assert qty(3) == 3_000_000
    with pytest.raises(TypeError):
        usd(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="six decimal places"):
        usd("0.0000001")
    with pytest.raises(ValueError, match="not a decimal"):
        usd("ten")


def test_rounding_direction_is_explicit() -> None:
    """W-EXE-7: values round down, costs round up."""
    assert div_round(7, 2, Rounding.DOWN) == 3
    assert div_round(7, 2, Rounding.UP) == 4
    assert div_round(-7, 2, Rounding.DOWN) == -4
    assert div_round(-7, 2, Rounding.UP) == -3
    # 0.1% fee on 0.000999 USD is 0.000000999 -> a cost rounds up to one micro-dollar.
    assert apply_rate(usd("0.000999"), 1_000) == 1
    # 1/3 of a token at 1.00 is worth 0.333333 (down), and costs 0.333334 (up).
    third = qty_for_value(usd(1), usd(3))
    assert third == 333_333
    assert value_of(qty("0.333333"), usd("1.000001"), Rounding.UP) == 333_334


def test_seed_fee_example() -> None:
    """W-EXE-5: a buy of 2,000.00 pays 0.1% fee and 0.1% slippage: takes 2,004.00."""
    value = usd("2000.00")
    assert value + apply_rate(value, 1_000) + apply_rate(value, 1_000) == usd("2004.00")


def test_percent_rounding_half_toward_higher() -> None:
    """ST-3 / W-SCO-2: nearest hundredth, an exact half rounds toward the higher value."""
    assert percent_2dp(684, 10_000) == Decimal("6.84")
    assert round_half_up_2dp(Fraction(1, 8)) == Decimal("0.13")  # 0.125 -> 0.13
    assert round_half_up_2dp(Fraction(-1, 8)) == Decimal("-0.12")  # -0.125 -> -0.12
    assert round_half_up_2dp(Decimal("-1.925")) == Decimal("-1.92")
    assert format_usd(usd("-1234.565")) == "-1,234.56"
    assert format_usd(usd("1234.565")) == "1,234.57"
    assert micros_to_str(usd("10231.4")) == "10231.400000"


@given(st.integers(-(10**15), 10**15), st.integers(1, 10**9))
def test_div_round_brackets_the_exact_quotient(n: int, d: int) -> None:
    """W-EXE-7: down <= exact <= up, and they differ by at most one micro-unit."""
    down, up = div_round(n, d, Rounding.DOWN), div_round(n, d, Rounding.UP)
    assert down <= Fraction(n, d) <= up
    assert up - down == (0 if n % d == 0 else 1)
