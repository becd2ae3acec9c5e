"""Decimal price text to exact micro-units, without floats.

Data files write prices as decimal text (``72.2715``, ``0.0046716``). They are
read straight into integer micro-units (millionths): the common case, at most
six decimals, is split on the dot and converted with ``int``; anything else
(more decimals, an exponent) goes through ``Decimal``. A value with more than
six decimals is **rounded half-even to the micro** (``0.0046716`` becomes
``0.004672``, 4,672 micro-dollars): Binance quotes some pairs to 7 or 8
decimals, and half-even rounding is unbiased and monotone, so the order of
open, high, low and close is preserved. Volume is read the same way, in
millionths of a share or of the base asset.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Final

from tradeleague.money import MICRO

__all__ = ["decimal_text_to_micros"]

_SIX_PLACES: Final = Decimal("0.000001")
_PAD: Final = "000000"


def decimal_text_to_micros(text: str) -> int:
    """Return the micro-units of a decimal number written as text.

    Parameters
    ----------
    text
        A finite decimal such as ``"108246.36"``, ``"3019717963.0"`` or
        ``"1e-05"``; surrounding spaces are ignored.

    Returns
    -------
    int
        The value times one million, rounded half-even when the text has more
        than six decimals.

    Raises
    ------
    ValueError
        If the text is not a finite decimal number.
    """
    whole, _, frac = text.partition(".")
    if (
        len(frac) <= 6
        and whole.isascii()
        and whole.isdigit()
        and (not frac or (frac.isascii() and frac.isdigit()))
    ):
        return int(whole) * MICRO + int((frac + _PAD)[:6])
    return _slow_micros(text)


def _slow_micros(text: str) -> int:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a decimal number") from None
    if not value.is_finite():
        raise ValueError(f"{text!r} is not a finite number")
    try:
        return int(value.quantize(_SIX_PLACES, rounding=ROUND_HALF_EVEN).scaleb(6))
    except InvalidOperation:
        raise ValueError(f"{text!r} is too large to hold exactly") from None
