"""The screen score and RSI-14 (SPEC T-CYC-1, T-CYC-3), exact and deterministic.

Screen score (ours, from T-CYC-1): the mean of close x volume over the last 20
closed daily candles, times ``1 + |close_t / close_{t-10} - 1|``, where
``close_t`` is the latest closed daily close and ``close_{t-10}`` the close ten
closed candles before it. Computed with fractions, so ranking never depends on
float rounding.

RSI-14 is Wilder's: the first averages are the simple means of the first 14
changes, then ``avg = (avg x 13 + change) / 14``; over the last 250 closed
candles (all if fewer); ``None`` with fewer than 15 closes; 100 when there are
no losses, 50 when there are no moves. Decimal arithmetic at 50 digits.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from decimal import Context, Decimal
from fractions import Fraction

from tradeleague.formats.thesis.candles import Candle
from tradeleague.money import MICRO

__all__ = ["rsi", "screen_score"]

_CTX = Context(prec=50)


def screen_score(daily: Sequence[Candle], window: int = 20, lag: int = 10) -> Fraction | None:
    """Return the screen score of closed daily candles in dollars, or ``None`` if too few.

    Parameters
    ----------
    daily
        Closed daily candles in time order.
    window
        Candles averaged for dollar volume (T-CYC-1: 20).
    lag
        Momentum look-back in candles (10).
    """
    if len(daily) < max(window, lag + 1):
        return None
    recent = daily[-window:]
    dollar_volume = Fraction(sum(c.close * c.volume for c in recent), MICRO * MICRO * window)
    momentum = Fraction(daily[-1].close, daily[-1 - lag].close) - 1
    return dollar_volume * (1 + abs(momentum))


def rsi(closes: Sequence[int], period: int = 14, window: int = 250) -> Decimal | None:
    """Return Wilder's RSI of the last ``window`` closes, or ``None`` with too few.

    Parameters
    ----------
    closes
        Closes of closed candles in time order (any integer unit).
    period
        The RSI length (14).
    window
        The closes read (the last 250).
    """
    values = list(closes[-window:])
    if len(values) < period + 1:
        return None
    changes = [b - a for a, b in itertools.pairwise(values)]
    if not any(changes):
        return Decimal(50)
    if not any(c < 0 for c in changes):
        return Decimal(100)
    gain = _CTX.divide(Decimal(sum(c for c in changes[:period] if c > 0)), period)
    loss = _CTX.divide(Decimal(sum(-c for c in changes[:period] if c < 0)), period)
    for change in changes[period:]:
        up = Decimal(change if change > 0 else 0)
        down = Decimal(-change if change < 0 else 0)
        gain = _CTX.divide(_CTX.add(_CTX.multiply(gain, period - 1), up), period)
        loss = _CTX.divide(_CTX.add(_CTX.multiply(loss, period - 1), down), period)
    if loss == 0:
        return Decimal(100)
    rs = _CTX.divide(gain, loss)
    return _CTX.subtract(Decimal(100), _CTX.divide(Decimal(100), _CTX.add(1, rs)))
