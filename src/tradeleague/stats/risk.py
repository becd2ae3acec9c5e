"""Risk-adjusted ratios over step returns (SPEC S-SCO-1, T-SCO-1).

These are statistics, so they are floats (money stays exact elsewhere). Every
function takes step returns as fractions of one (``0.01`` is +1%), as ``float``
or exact ``Fraction`` from :func:`tradeleague.stats.returns.step_returns`.

Conventions, stated once:

- The standard deviation of step returns is the *sample* standard deviation
  (``ddof=1``, divide by ``n - 1``).
- ``risk_free`` is a rate *per step* (not per year), subtracted from every step
  return; convert an annual rate yourself, e.g. ``(1 + annual) ** (1 / ppy) - 1``.
- Annualising multiplies a per-step ratio by ``sqrt(periods_per_year)``.
- A ratio that is undefined (too few steps, or a zero denominator) is ``None``,
  never NaN or infinity. A constant series has volatility ``0.0`` and an
  undefined Sharpe ratio; a series with no step below the target has an
  undefined Sortino ratio. A ratio too large for a float (a spread that is
  almost zero) is ``None`` as well.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import SupportsFloat

import numpy as np
import numpy.typing as npt

__all__ = ["DownsideDeviation", "downside_deviation", "sharpe", "sortino", "volatility"]


class DownsideDeviation(enum.Enum):
    """How the Sortino denominator, the downside deviation, is measured."""

    TARGET_SEMIDEVIATION = "target_semideviation"
    """``sqrt(mean(min(r - rf, 0) ** 2))`` over *all* steps (Sortino and Price).

    A step at or above the target counts as a zero deviation, so the number of
    steps stays ``n``. The default: it is defined from a single losing step and
    does not fall when losses are large but alike.
    """
    NEGATIVE_STD = "negative_std"
    """The sample standard deviation of the excess step returns that are below zero.

    The seed's wording read literally ("std-dev of negative returns only"): the
    spread of the losing steps around their own mean. It needs two losing steps
    that differ, and it is zero when every loss is the same size.
    """


def _as_array(returns: Sequence[SupportsFloat]) -> npt.NDArray[np.float64]:
    array = np.asarray([float(r) for r in returns], dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("step returns must be finite numbers")
    return array


def _std(x: npt.NDArray[np.float64]) -> float:
    """Return the sample std, scaled first so that tiny or huge returns cannot under/overflow."""
    scale = float(np.max(np.abs(x)))
    return float(np.std(x / scale, ddof=1)) * scale


def _ratio(numerator: float, denominator: float | None) -> float | None:
    """Return ``numerator / denominator``, or ``None`` when that is undefined or not finite."""
    if denominator is None or denominator == 0.0:
        return None
    value = numerator / denominator
    return value if math.isfinite(value) else None


def _check_periods(periods_per_year: float) -> None:
    if not (math.isfinite(periods_per_year) and periods_per_year > 0):
        raise ValueError(f"periods_per_year must be a positive number, not {periods_per_year}")


def volatility(
    returns: Sequence[SupportsFloat], *, periods_per_year: float | None = None
) -> float | None:
    """Return the sample standard deviation of step returns (S-SCO-1, informational).

    Parameters
    ----------
    returns
        Step returns as fractions of one.
    periods_per_year
        If given, annualise by ``sqrt(periods_per_year)``; if ``None``, return the
        per-step figure, as the scenario benchmark reports it.

    Returns
    -------
    float or None
        ``None`` for fewer than two steps; exactly ``0.0`` when every step is equal.
    """
    if periods_per_year is not None:
        _check_periods(periods_per_year)
    r = _as_array(returns)
    if r.size < 2:
        return None
    if np.all(r == r[0]):
        return 0.0
    std = _std(r)
    return std if periods_per_year is None else std * math.sqrt(periods_per_year)


def sharpe(
    returns: Sequence[SupportsFloat], *, periods_per_year: float, risk_free: float = 0.0
) -> float | None:
    """Return the annualised Sharpe ratio: mean excess step return / std of step returns.

    ``sqrt(periods_per_year) * mean(r - risk_free) / std(r, ddof=1)`` (S-SCO-1).

    Parameters
    ----------
    returns
        Step returns as fractions of one.
    periods_per_year
        Steps in a year (252 for trading days, 252 x 6.5 for US equity hours...).
    risk_free
        The risk-free rate per step.

    Returns
    -------
    float or None
        ``None`` for fewer than two steps, a constant series (zero spread), or a
        ratio too large for a float.
    """
    _check_periods(periods_per_year)
    r = _as_array(returns)
    if r.size < 2 or np.all(r == r[0]):
        return None
    excess = float(np.mean(r - risk_free))
    return _ratio(math.sqrt(periods_per_year) * excess, _std(r))


def downside_deviation(
    returns: Sequence[SupportsFloat],
    *,
    risk_free: float = 0.0,
    method: DownsideDeviation = DownsideDeviation.TARGET_SEMIDEVIATION,
) -> float | None:
    """Return the per-step downside deviation below ``risk_free`` (the Sortino denominator).

    Returns
    -------
    float or None
        ``None`` when it is undefined: no steps, or for ``NEGATIVE_STD`` fewer
        than two losing steps. ``0.0`` when no step is below the target
        (``TARGET_SEMIDEVIATION``) or every losing step is equal (``NEGATIVE_STD``).
    """
    excess = _as_array(returns) - risk_free
    if excess.size == 0:
        return None
    below = excess[excess < 0]
    if method is DownsideDeviation.TARGET_SEMIDEVIATION:
        if below.size == 0:
            return 0.0
        scale = float(np.max(np.abs(below)))
        return math.sqrt(float(np.sum((below / scale) ** 2)) / excess.size) * scale
    if below.size < 2:
        return None
    if np.all(below == below[0]):
        return 0.0
    return _std(below)


def sortino(
    returns: Sequence[SupportsFloat],
    *,
    periods_per_year: float,
    risk_free: float = 0.0,
    method: DownsideDeviation = DownsideDeviation.TARGET_SEMIDEVIATION,
) -> float | None:
    """Return the annualised Sortino ratio: mean excess step return / downside deviation.

    ``sqrt(periods_per_year) * mean(r - risk_free) / downside_deviation(r)``
    (S-SCO-1), the target of the downside deviation being ``risk_free``.

    Parameters
    ----------
    returns
        Step returns as fractions of one.
    periods_per_year
        Steps in a year.
    risk_free
        The risk-free rate per step, also the downside target.
    method
        How the downside deviation is measured (see :class:`DownsideDeviation`).

    Returns
    -------
    float or None
        ``None`` for fewer than two steps, or when the downside deviation is
        undefined or zero (no step below the target: the ratio would be infinite).
    """
    _check_periods(periods_per_year)
    r = _as_array(returns)
    if r.size < 2:
        return None
    dd = downside_deviation(r.tolist(), risk_free=risk_free, method=method)
    return _ratio(math.sqrt(periods_per_year) * float(np.mean(r - risk_free)), dd)
