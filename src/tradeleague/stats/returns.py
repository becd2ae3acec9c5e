"""Returns and drawdown over a value path, exactly (SPEC S-SCO-1, W-SCO-2, T-SCO-1).

A value path is a sequence of portfolio values in integer micro-dollars: the
agent's entries in the weights league (W-SCO-1), the equity after each bar in
the scenario benchmark, the daily snapshots in the thesis league. Every result
here is an exact ``Fraction``; rounding happens only for display, by ST-3
(:func:`tradeleague.stats.rounding.percent`).

Which values count is the caller's choice, and the formats differ:

- Weights league (seed 000): the season return is measured from the starting
  value (10,000) to the latest entry; the max drawdown is measured *only at the
  agent's own entries*, so the starting value is not a peak. Pass the entries
  alone to :func:`max_drawdown` and the start separately to
  :func:`season_return`.
- Scenario benchmark (seed 003): the starting cash is the equity before the
  first step, so it belongs to the path; pass it as the first value.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from tradeleague.stats.rounding import percent

__all__ = [
    "drawdown_percent",
    "max_drawdown",
    "return_percent",
    "season_return",
    "step_returns",
]


def season_return(start: int, values: Sequence[int]) -> Fraction:
    """Return the season return: latest value / start - 1 (S-SCO-1, W-SCO-2).

    Parameters
    ----------
    start
        The starting value in micro-dollars (10,000 USD in the weights league);
        must be positive.
    values
        The value path in micro-dollars; only its last value matters.

    Returns
    -------
    Fraction
        The exact return; ``0`` for an empty path (nothing has happened yet, the
        portfolio is still worth its start).

    Raises
    ------
    ValueError
        If ``start`` is not positive.

    Examples
    --------
    >>> season_return(10_000_000_000, [10_231_400_000, 10_035_200_000, 10_684_000_000])
    Fraction(171, 2500)
    """
    if start <= 0:
        raise ValueError(f"the starting value must be positive, not {start}")
    if not values:
        return Fraction(0)
    return Fraction(values[-1], start) - 1


def max_drawdown(values: Sequence[int]) -> Fraction:
    """Return the worst peak-to-trough fall as a positive fraction of the peak (S-SCO-1).

    The peak is the highest value seen so far in ``values``; a later value
    below it is a drawdown of ``(peak - value) / peak``. Lower is better.

    Parameters
    ----------
    values
        The value path in micro-dollars. Its first value must be positive (it
        is the first peak); later values may be zero or below, which gives a
        drawdown of 1 or more.

    Returns
    -------
    Fraction
        ``0`` for an empty path, a single value, or a path that never falls.

    Raises
    ------
    ValueError
        If the first value is not positive.

    Examples
    --------
    >>> max_drawdown([10_231_400_000, 10_035_200_000, 10_684_000_000])
    Fraction(981, 51157)
    """
    if not values:
        return Fraction(0)
    if values[0] <= 0:
        raise ValueError(f"the first value of a path must be positive, not {values[0]}")
    peak = values[0]
    worst = Fraction(0)
    for value in values[1:]:
        if value > peak:
            peak = value
        elif value < peak:
            worst = max(worst, Fraction(peak - value, peak))
    return worst


def step_returns(values: Sequence[int]) -> tuple[Fraction, ...]:
    """Return the exact return of each step: ``values[i] / values[i-1] - 1``.

    Parameters
    ----------
    values
        The value path in micro-dollars (include the starting value to get the
        first step's return).

    Returns
    -------
    tuple of Fraction
        One return fewer than there are values; empty for fewer than two values.

    Raises
    ------
    ValueError
        If a value that a step starts from is not positive (its return is
        undefined).
    """
    out: list[Fraction] = []
    for before, after in itertools.pairwise(values):
        if before <= 0:
            raise ValueError(f"a step cannot start from a value of {before}: return undefined")
        out.append(Fraction(after, before) - 1)
    return tuple(out)


def return_percent(start: int, values: Sequence[int]) -> Decimal:
    """Return the season return in percent, rounded by ST-3 (W-SCO-2: ``6.84``)."""
    return percent(season_return(start, values))


def drawdown_percent(values: Sequence[int]) -> Decimal:
    """Return the max drawdown as the weights league shows it: negative percent (W-SCO-2).

    The seed shows a drawdown as a fall (``-1.92%``). The negative number is what
    is rounded, so an exact half goes toward the higher value, i.e. toward zero
    (``-1.925`` -> ``-1.92``), as ST-3 says for every percentage shown.
    """
    return percent(-max_drawdown(values))
