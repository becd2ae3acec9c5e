"""Percentages for people: ST-3 rounding of exact and float statistics.

Every percentage shown is rounded to a fixed number of decimals with an exact
half going toward the higher value (SPEC W-SCO-2, ST-3), so ``-1.925`` becomes
``-1.92`` and ``1.925`` becomes ``1.93``. Exact statistics arrive as
``Fraction``; float statistics (intervals, ratios) are rounded from the exact
binary value of the float, so the result never depends on ``repr``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from tradeleague.money import round_half_up_fraction

__all__ = ["percent", "round_half_up"]


def round_half_up(value: Fraction | Decimal | float | int, places: int = 2) -> Decimal:
    """Round a number to ``places`` decimals, an exact half toward the higher value (ST-3).

    Parameters
    ----------
    value
        The number; a float is taken at its exact binary value.
    places
        Decimal places to keep (0 or more).

    Raises
    ------
    ValueError
        For a float that is NaN or infinite: statistics never leak those.
    """
    if places < 0:
        raise ValueError("places must be 0 or more")
    return round_half_up_fraction(_exact(value), places)


def percent(value: Fraction | Decimal | float | int, places: int = 2) -> Decimal:
    """Return a fraction as a percent rounded by ST-3 (``Fraction(684, 10000)`` -> ``6.84``).

    Parameters
    ----------
    value
        A fraction of one (``0.0684`` is 6.84%).
    places
        Decimal places of the percent: 2 for scores (W-SCO-2), 1 for the luck
        calculator's intervals (D-LCK-1).
    """
    return round_half_up(_exact(value) * 100, places)


def _exact(value: Fraction | Decimal | float | int) -> Fraction:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot round a non-finite number ({value!r})")
        return Fraction(value)
    return Fraction(value)
