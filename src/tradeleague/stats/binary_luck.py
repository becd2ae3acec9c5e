"""How much of a hit rate is luck: the direction arena's calculator (SPEC D-SCO-6, D-LCK-1..3).

Hit rates are fractions of one (``0.531`` is 53.1%); a payout is the fraction
of the stake a win returns (``Fraction(4, 5)`` for 80%). The money-like answers
(break-even, expected P&L) are exact ``Fraction``; the ones that need a square
root or a distribution are floats. The published constants are the defaults:
z = 1.96 for 95% confidence and 0.8416 for 80% power, as the seed prints them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = [
    "Z_95",
    "Z_POWER_80",
    "HitRateInterval",
    "break_even_hit_rate",
    "expected_pnl_per_round",
    "expected_top_hit_rate",
    "top_hit_rate_p_value",
    "trades_to_prove",
    "wald_interval",
]

Z_95 = 1.96
"""Two-sided 95% normal quantile, as published (D-LCK-1, D-LCK-2)."""

Z_POWER_80 = 0.8416
"""One-sided normal quantile for 80% power, as published (D-LCK-2)."""


def _check_rate(p: float, what: str = "hit rate") -> None:
    if not (math.isfinite(p) and 0.0 <= p <= 1.0):
        raise ValueError(f"the {what} must be between 0 and 1, not {p}")


def break_even_hit_rate(payout: Fraction) -> Fraction:
    """Return the hit rate at which expected P&L is zero: 1 / (1 + payout) (D-SCO-6).

    A win returns ``stake x payout`` and a loss costs the stake, so a coin flip
    loses money whenever the payout is below 100%.

    Examples
    --------
    >>> break_even_hit_rate(Fraction(4, 5))
    Fraction(5, 9)
    """
    if payout <= 0:
        raise ValueError(f"the payout must be positive, not {payout}")
    return 1 / (1 + payout)


def expected_pnl_per_round(hit_rate: Fraction, payout: Fraction, stake: Fraction) -> Fraction:
    """Return expected P&L of one settled trade: stake x (hit x payout - (1 - hit)) (D-SCO-6).

    Draws are left out, as in the hit rate (D-SCO-2). The answer is in the
    stake's unit.

    Examples
    --------
    >>> expected_pnl_per_round(Fraction(1, 2), Fraction(4, 5), Fraction(10))
    Fraction(-1, 1)
    """
    _check_rate(float(hit_rate))
    if payout <= 0:
        raise ValueError(f"the payout must be positive, not {payout}")
    return stake * (hit_rate * payout - (1 - hit_rate))


@dataclass(frozen=True, slots=True)
class HitRateInterval:
    """A two-sided confidence interval of a hit rate, as fractions of one.

    ``low`` and ``high`` are clipped to [0, 1]; ``half_width`` is the unclipped
    ``z x standard error``.
    """

    low: float
    high: float
    half_width: float

    def contains(self, rate: float) -> bool:
        """Return whether ``rate`` lies in the interval, ends included."""
        return self.low <= rate <= self.high


def wald_interval(hit_rate: float, trades: int, *, z: float = Z_95) -> HitRateInterval:
    """Return the normal-approximation (Wald) interval p +/- z sqrt(p(1-p)/n) (D-LCK-1).

    The seed's calculator uses this interval, so it is the default; it is
    known to be too narrow near 0 and 1 and for small ``n``, and is degenerate
    (zero width) at exactly 0 or 1.

    Parameters
    ----------
    hit_rate
        The observed hit rate, a fraction of one.
    trades
        The number of settled trades it rests on (positive).
    z
        The normal quantile: 1.96 for 95%.

    Examples
    --------
    >>> ci = wald_interval(0.531, 750)
    >>> round(ci.low, 3), round(ci.high, 3), ci.contains(0.5)
    (0.495, 0.567, True)
    """
    _check_rate(hit_rate)
    if trades <= 0:
        raise ValueError(f"the number of trades must be positive, not {trades}")
    half = z * math.sqrt(hit_rate * (1.0 - hit_rate) / trades)
    return HitRateInterval(
        low=max(0.0, hit_rate - half), high=min(1.0, hit_rate + half), half_width=half
    )


def trades_to_prove(
    hit_rate: float, *, z_alpha: float = Z_95, z_power: float = Z_POWER_80, null: float = 0.5
) -> int | None:
    """Return the trades needed to tell ``hit_rate`` from ``null`` (D-LCK-2).

    ``n = ((z_alpha sqrt(null(1-null)) + z_power sqrt(p(1-p))) / (p - null))^2``,
    rounded up; with the defaults this is the seed's
    ``((1.96 x 0.5 + 0.8416 x sqrt(p(1-p))) / (p - 0.5))^2`` for 95% confidence
    and 80% power. Before rounding up, ``n`` is rounded to 9 decimals so float
    noise in an exact whole number cannot add a trade.

    Returns
    -------
    int or None
        ``None`` when ``hit_rate`` equals ``null``: no number of trades would
        tell them apart.

    Examples
    --------
    >>> trades_to_prove(0.531)
    2040
    """
    _check_rate(hit_rate)
    _check_rate(null, "null rate")
    gap = hit_rate - null
    if gap == 0.0:
        return None
    numerator = z_alpha * math.sqrt(null * (1.0 - null)) + z_power * math.sqrt(
        hit_rate * (1.0 - hit_rate)
    )
    return math.ceil(round((numerator / gap) ** 2, 9))


def expected_top_hit_rate(trades: int, models: int, *, p: float = 0.5) -> float:
    """Return the expected best hit rate among ``models`` coins over ``trades`` each (D-LCK-3).

    Each model's hits are Binomial(trades, p), independent; the best of them
    has ``P(max <= k) = F(k) ** models`` with ``F`` the binomial CDF, so
    ``E[max] = sum over k = 0 .. trades-1 of (1 - F(k) ** models)``. The sum is
    computed from the exact distribution in floating point (no simulation):
    the upper tail ``1 - F`` is summed from the top so that ``1 - F ** models``
    keeps its precision where ``F`` is close to 1.

    Parameters
    ----------
    trades
        Settled trades per model (positive).
    models
        How many models are compared (1 or more).
    p
        Each trade's chance of a hit; 0.5 is a coin flip.

    Returns
    -------
    float
        ``E[max hits] / trades``, a fraction of one.

    Examples
    --------
    >>> round(expected_top_hit_rate(750, 15), 4)
    0.5317
    """
    if trades <= 0:
        raise ValueError(f"the number of trades must be positive, not {trades}")
    if models < 1:
        raise ValueError(f"the number of models must be 1 or more, not {models}")
    if not (math.isfinite(p) and 0.0 < p < 1.0):
        if p in (0.0, 1.0):
            return p
        raise ValueError(f"the hit probability must be between 0 and 1, not {p}")
    log_fact = np.array([math.lgamma(k + 1.0) for k in range(trades + 1)])
    k = np.arange(trades + 1, dtype=np.float64)
    log_pmf = (
        log_fact[trades]
        - log_fact
        - log_fact[::-1]
        + k * math.log(p)
        + (trades - k) * math.log1p(-p)
    )
    pmf = np.exp(log_pmf)
    pmf /= pmf.sum()
    cdf = np.cumsum(pmf)[:-1]  # F(k) for k = 0 .. trades-1
    tail = np.cumsum(pmf[::-1])[::-1][1:]  # 1 - F(k), summed from the top
    with np.errstate(divide="ignore"):
        near_one = -np.expm1(models * np.log1p(-np.minimum(tail, 1.0)))
    terms = np.where(cdf <= 0.5, 1.0 - cdf**models, near_one)
    return float(np.sum(terms)) / trades


def top_hit_rate_p_value(hits: int, trades: int, models: int, *, p: float = 0.5) -> float:
    """Return the chance that the best of ``models`` coins over ``trades`` hits ``hits`` or more.

    The p-value of a board's top hit rate under no skill (D-LCK-3): each
    model's hits are Binomial(trades, p), independent, so
    ``P(max >= hits) = 1 - F(hits - 1) ** models`` with ``F`` the binomial CDF.

    Examples
    --------
    >>> round(top_hit_rate_p_value(8, 10, 1), 4)
    0.0547
    >>> top_hit_rate_p_value(0, 10, 3)
    1.0
    """
    if trades <= 0:
        raise ValueError(f"the number of trades must be positive, not {trades}")
    if models < 1:
        raise ValueError(f"the number of models must be 1 or more, not {models}")
    if not 0 <= hits <= trades:
        raise ValueError(f"hits must be between 0 and {trades}, not {hits}")
    _check_rate(p, "hit probability")
    if hits == 0:
        return 1.0
    below = sum(math.comb(trades, k) * p**k * (1 - p) ** (trades - k) for k in range(hits))
    below = min(max(below, 0.0), 1.0)
    return float(-math.expm1(models * math.log1p(-(1.0 - below)))) if below < 1.0 else 0.0
