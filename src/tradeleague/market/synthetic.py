"""A seeded synthetic market: geometric random walks on a real calendar.

For tests and offline demos only. The dataset is marked ``synthetic=True`` and
labelled ``synthetic (seed N)``, and everything that shows a dataset shows that
label. Randomness comes only from the ``numpy.random.Generator`` passed in (or
one made from the seed given), so the same seed always gives the same bars.

Bars respect the calendar: daily bars fall on NYSE sessions (stamped 00:00Z on
the session date), intraday NYSE bars on the session grid, and 24/7 bars every
``bar_size`` from ``start``. Each close follows a geometric Brownian motion;
each open is the previous close (plus a small overnight gap on NYSE); high and
low lie outside open and close, so every bar is valid OHLC.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np
from numpy.typing import NDArray

from tradeleague.market.calendars import DAY_S, NYSE, TradingCalendar, get_calendar
from tradeleague.market.dataset import Dataset, make_dataset
from tradeleague.market.grid import expected_slots
from tradeleague.money import MICRO, Usd

__all__ = ["DEFAULT_PRICE", "DEFAULT_START", "synthetic_dataset"]

DEFAULT_START: Final = datetime(2024, 1, 2, tzinfo=UTC)
"""Where synthetic bars start unless told otherwise."""
DEFAULT_PRICE: Final = Usd(100 * MICRO)
"""Every synthetic symbol's first open unless told otherwise (100 dollars)."""
_YEAR_S: Final = 365 * DAY_S
_SESSION_S: Final = 23_400  # a regular NYSE session, 6.5 hours


def _times(calendar: TradingCalendar, size_s: int, start: datetime, n: int) -> NDArray[np.int64]:
    t0 = int(start.timestamp())
    if calendar.continuous:
        return t0 + np.arange(n, dtype=np.int64) * size_s
    first = int(np.searchsorted(calendar.days, -(-t0 // DAY_S)))
    if size_s == DAY_S:
        days = calendar.days[first : first + n]
        if len(days) < n:
            raise ValueError("the calendar ends before that many sessions")
        return days * DAY_S
    if size_s > DAY_S:
        raise ValueError(f"synthetic {calendar.name} bars are intraday or 1d")
    out: list[NDArray[np.int64]] = []
    have, i = 0, first
    while have < n:
        if i >= len(calendar.days):
            raise ValueError("the calendar ends before that many bars")
        j = min(i + 64, len(calendar.days) - 1)
        slots = expected_slots(
            int(calendar.opens[i]), int(calendar.closes[j]) - 1, size_s, calendar
        )
        out.append(slots)
        have += len(slots)
        i = j + 1
    return np.concatenate(out)[:n]


def _years_per_bar(calendar: TradingCalendar, size_s: int) -> float:
    if calendar.continuous:
        return size_s / _YEAR_S
    return min(size_s, _SESSION_S) / _SESSION_S / 252 if size_s < DAY_S else 1 / 252


def _walk(
    rng: np.random.Generator,
    n: int,
    start_price: int,
    dt: float,
    drift: float,
    vol: float,
    gaps: bool,
) -> tuple[NDArray[np.int64], ...]:
    step = vol * math.sqrt(dt)
    log_ret = (drift - 0.5 * vol * vol) * dt + step * rng.standard_normal(n)
    gap = 0.25 * step * rng.standard_normal(n) if gaps else np.zeros(n)
    gap[0] = 0.0
    base = math.log(start_price / MICRO)
    log_close = base + np.cumsum(log_ret + gap)
    log_open = np.concatenate(([base], log_close[:-1])) + gap
    up = np.abs(rng.standard_normal(n)) * 0.5 * step
    down = np.abs(rng.standard_normal(n)) * 0.5 * step
    open_ = np.maximum(np.rint(np.exp(log_open) * MICRO), 1).astype(np.int64)
    close = np.maximum(np.rint(np.exp(log_close) * MICRO), 1).astype(np.int64)
    high_f = np.ceil(np.exp(np.maximum(log_open, log_close) + up) * MICRO).astype(np.int64)
    low_f = np.floor(np.exp(np.minimum(log_open, log_close) - down) * MICRO).astype(np.int64)
    high = np.maximum(high_f, np.maximum(open_, close))
    low = np.maximum(np.minimum(low_f, np.minimum(open_, close)), 1)
    shares = np.rint(rng.lognormal(mean=math.log(1e6), sigma=0.5, size=n)).astype(np.int64)
    return open_, high, low, close, shares * MICRO


def synthetic_dataset(
    n_symbols: int,
    n_bars: int,
    *,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    bar_size: timedelta = timedelta(days=1),
    calendar: str = NYSE,
    start: datetime = DEFAULT_START,
    symbols: Sequence[str] | None = None,
    start_price: Usd = DEFAULT_PRICE,
    drift: float = 0.05,
    volatility: float = 0.30,
) -> Dataset:
    """Return a synthetic dataset: ``n_symbols`` random walks of ``n_bars`` bars.

    Parameters
    ----------
    n_symbols, n_bars
        How many symbols, and bars per symbol.
    seed
        The seed; the label reads ``synthetic (seed N)``.
    rng
        A generator to draw from instead (with ``seed`` too, the seed is only
        named in the label); without a seed the label reads
        ``synthetic (injected generator)``.
    bar_size
        The bar size: intraday or ``1d`` on XNYS, any size on 24/7.
    calendar
        ``"XNYS"`` or ``"24/7"``.
    start
        The earliest bar time (daily NYSE bars start at the first session on
        or after its date).
    symbols
        Names for the symbols (default ``SYN01``, ``SYN02``...).
    start_price
        Every symbol's first open, in micro-dollars.
    drift, volatility
        Annual drift and volatility of the log price.

    Raises
    ------
    ValueError
        If neither a seed nor a generator is given, or the sizes are impossible.
    """
    if rng is None and seed is None:
        raise ValueError("give a seed or a numpy Generator: synthetic data must be reproducible")
    if n_symbols < 1 or n_bars < 1:
        raise ValueError("a synthetic dataset needs at least one symbol and one bar")
    if start.tzinfo is None:
        raise ValueError("start must be an aware UTC datetime")
    names = (
        tuple(symbols)
        if symbols is not None
        else tuple(f"SYN{i + 1:02d}" for i in range(n_symbols))
    )
    if len(names) != n_symbols or len(set(names)) != n_symbols:
        raise ValueError("give exactly n_symbols distinct symbol names")
    generator = rng if rng is not None else np.random.default_rng(seed)
    cal = get_calendar(calendar)
    size_s = int(bar_size.total_seconds())
    times = _times(cal, size_s, start, n_bars)
    dt = _years_per_bar(cal, size_s)
    columns = {
        name: (
            times,
            *_walk(generator, n_bars, start_price, dt, drift, volatility, not cal.continuous),
        )
        for name in names
    }
    label = "synthetic (injected generator)" if seed is None else f"synthetic (seed {seed})"
    return make_dataset(
        columns,
        source="synthetic",
        label=label,
        synthetic=True,
        bar_size=bar_size,
        calendar=cal.name,
    )
