"""Exact money: integer micro-units and explicit rounding (SPEC W-EXE-7, ST-3).

Cash is counted in whole millionths of a US dollar and quantities in whole
millionths of a unit. Every division names its rounding direction: values are
rounded down and costs up, so no sequence of trades can create value. Floats
never enter accounting; constructors take ``int``, ``Decimal`` or ``str``.

The two kinds of amount are distinct types for the type checker (``Usd`` and
``Qty`` are ``NewType``s over ``int``), so mixing them is a type error while the
engine keeps plain-integer speed.
"""

from __future__ import annotations

import enum
import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import NewType

__all__ = [
    "MICRO",
    "Qty",
    "Rounding",
    "Usd",
    "apply_rate",
    "div_round",
    "format_usd",
    "micros_to_decimal",
    "micros_to_str",
    "parse_micros",
    "percent_2dp",
    "qty",
    "qty_for_value",
    "round_half_up_2dp",
    "round_half_up_fraction",
    "usd",
    "value_of",
]

MICRO = 1_000_000
"""Micro-units per whole unit."""

Usd = NewType("Usd", int)
"""An amount of virtual US dollars, in micro-dollars."""

Qty = NewType("Qty", int)
"""A quantity of an instrument, in millionths of one unit."""


class Rounding(enum.Enum):
    """The direction of an inexact division."""

    DOWN = "down"
    """Toward minus infinity: used for values received."""
    UP = "up"
    """Toward plus infinity: used for costs paid."""


def div_round(numerator: int, denominator: int, rounding: Rounding) -> int:
    """Divide two integers exactly, rounding as told.

    Parameters
    ----------
    numerator, denominator
        Integers; the denominator must not be zero.
    rounding
        ``Rounding.DOWN`` floors, ``Rounding.UP`` ceils.
    """
    if denominator == 0:
        raise ZeroDivisionError("division by zero in money arithmetic")
    if rounding is Rounding.DOWN:
        return numerator // denominator
    return -((-numerator) // denominator)


def parse_micros(value: int | str | Decimal, *, what: str = "amount") -> int:
    """Turn a whole number, a decimal string or a ``Decimal`` into micro-units.

    More than six decimal places is an error, never a silent rounding.

    Raises
    ------
    TypeError
        For a float (binary floats cannot carry exact money) or another type.
    ValueError
        For text that is not a finite decimal, or more than six decimal places.
    """
    if isinstance(value, bool | float):
        raise TypeError(f"{what}: use int, str or Decimal, never float ({value!r})")
    if isinstance(value, int):
        return value * MICRO
    if isinstance(value, str):
        try:
            dec = Decimal(value.strip().replace(",", "").replace("_", ""))
        except InvalidOperation:
            raise ValueError(f"{what}: {value!r} is not a decimal number") from None
    elif isinstance(value, Decimal):
        dec = value
    else:
        raise TypeError(f"{what}: use int, str or Decimal, not {type(value).__name__}")
    if not dec.is_finite():
        raise ValueError(f"{what}: {value!r} is not finite")
    scaled = dec * MICRO
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{what}: {value!r} has more than six decimal places")
    return int(scaled)


def usd(value: int | str | Decimal) -> Usd:
    """Return a USD amount in micro-dollars from whole dollars or a decimal string."""
    return Usd(parse_micros(value, what="USD amount"))


def qty(value: int | str | Decimal) -> Qty:
    """Return a quantity in micro-units from whole units or a decimal string."""
    return Qty(parse_micros(value, what="quantity"))


def micros_to_decimal(micros: int) -> Decimal:
    """Return the exact ``Decimal`` for a micro-unit integer (six places)."""
    return (Decimal(micros) / MICRO).quantize(Decimal("0.000001"))


def micros_to_str(micros: int) -> str:
    """Return the exact decimal string of a micro-unit amount, six places."""
    return str(micros_to_decimal(micros))


def format_usd(micros: int, places: int = 2) -> str:
    """Format micro-dollars for people: ``-1,234.56`` (rounded half toward higher)."""
    q = round_half_up_fraction(Fraction(micros, MICRO), places)
    return f"{q:,.{places}f}"


def value_of(quantity: Qty, price: Usd, rounding: Rounding = Rounding.DOWN) -> Usd:
    """Return the USD value of ``quantity`` at ``price`` (both micro-units)."""
    return Usd(div_round(quantity * price, MICRO, rounding))


def qty_for_value(value: Usd, price: Usd, rounding: Rounding = Rounding.DOWN) -> Qty:
    """Return the quantity that ``value`` buys at ``price``, rounded as told."""
    if price <= 0:
        raise ValueError("price must be positive")
    return Qty(div_round(value * MICRO, price, rounding))


def apply_rate(amount: Usd, rate_ppm: int, rounding: Rounding = Rounding.UP) -> Usd:
    """Return ``amount x rate`` where the rate is in parts per million (0.1% = 1,000).

    Fees and slippage are costs, so the default rounds up (W-EXE-7).
    """
    return Usd(div_round(amount * rate_ppm, MICRO, rounding))


def round_half_up_fraction(value: Fraction, places: int) -> Decimal:
    """Round to ``places`` decimals, an exact half toward the higher value (ST-3)."""
    scale: int = 10**places
    scaled = value * scale
    n: int = math.floor(scaled + Fraction(1, 2))
    return (Decimal(n) / scale).quantize(Decimal(1).scaleb(-places))


def round_half_up_2dp(value: Fraction | Decimal | int) -> Decimal:
    """Round to hundredths, an exact half toward the higher value (W-SCO-2, ST-3)."""
    return round_half_up_fraction(Fraction(value), 2)


def percent_2dp(numerator: int, denominator: int) -> Decimal:
    """Return ``100 x numerator / denominator`` as a percent rounded by ST-3.

    >>> percent_2dp(684, 10000)
    Decimal('6.84')
    """
    if denominator == 0:
        raise ZeroDivisionError("percent of zero")
    return round_half_up_fraction(Fraction(100 * numerator, denominator), 2)
