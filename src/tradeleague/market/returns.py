"""Trailing returns over the last k trading days, as of an instant (SPEC W-ASK-1).

As of instant t, the *current session* is the one in progress at t, or else the
latest one that has closed by t. The k-day return is

    latest price observable at t / close of the session k sessions before the
    current one - 1

so a 1-day return is the move since the previous session's close, the usual
"change on the day". Sessions come from the dataset's calendar (NYSE sessions
for US equities; every UTC day for crypto). The reference close is the close of
the last bar that closed inside the reference session. The return is
``None`` (shown as "unknown") when the data cannot answer: no price yet at t,
fewer than k earlier sessions, or no bar in the reference session (before the
symbol listed, or after its data ends). Results are exact ``Fraction``s.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from fractions import Fraction

from tradeleague.market.dataset import Dataset
from tradeleague.market.observe import latest_observation

__all__ = ["trailing_return", "trailing_returns"]


def trailing_return(dataset: Dataset, symbol: str, moment: datetime, days: int) -> Fraction | None:
    """Return ``symbol``'s return over the last ``days`` trading days as of ``moment``.

    Parameters
    ----------
    dataset
        The bars to read.
    symbol
        One of the dataset's symbols.
    moment
        The instant of the question (aware); nothing known later is used.
    days
        How many trading days back the reference close lies (1, 5, 20...).

    Returns
    -------
    Fraction or None
        The exact return (``Fraction(1, 100)`` is +1%), or ``None`` when there
        is not enough history.
    """
    if days < 1:
        raise ValueError("a trailing return looks back at least one trading day")
    series = dataset[symbol]
    calendar = dataset.calendar
    now = latest_observation(series, moment)
    current = calendar.session_at(moment) or calendar.last_closed_session(moment)
    if now is None or current is None:
        return None
    earlier = calendar.previous_sessions(current, days)
    if len(earlier) < days:
        return None
    reference = earlier[0]
    ref = latest_observation(series, calendar.session_close(reference), include_opens=False)
    if ref is None or ref.at <= calendar.session_open(reference):
        return None
    return Fraction(now.price, ref.price) - 1


def trailing_returns(
    dataset: Dataset, symbol: str, moment: datetime, periods: Iterable[int] = (1, 5, 20)
) -> dict[int, Fraction | None]:
    """Return ``{k: trailing_return(...)}`` for each period (default 1, 5, 20 days)."""
    return {k: trailing_return(dataset, symbol, moment, k) for k in periods}
