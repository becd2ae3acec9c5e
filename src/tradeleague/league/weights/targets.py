"""What an agent asked for each round beside what it got: target weights and held weights.

A decision's targets are basis points of the portfolio (``DecisionMade``'s
``targets``); what it got is each holding's value at the round's prices over
the portfolio's value after the round's fills, in percent (two places, half
up). A weight the league capped (W-PF-3) or scaled shows as it was filled.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from tradeleague.money import MICRO
from tradeleague.stats import round_half_up

__all__ = ["asked_and_got"]


def _pct(part: Fraction) -> str:
    return str(round_half_up(part * 100, 2))


def asked_and_got(
    targets: Mapping[str, int] | None,
    holdings: Mapping[str, int],
    value: int,
    prices: Mapping[str, int],
) -> dict[str, dict[str, str | None]]:
    """Return each symbol's asked and held weight, in percent: ``{symbol: {asked, got}}``.

    ``targets`` are the decision's basis points (``None``: no decision this
    round, so nothing was asked); ``holdings`` micro-units held after the
    round; ``value`` the portfolio's value then and ``prices`` the round's
    prices, in micro-dollars. A symbol with no price this round shows no held
    weight.
    """
    symbols = sorted(set(targets or {}) | {s for s, q in holdings.items() if q})
    out: dict[str, dict[str, str | None]] = {}
    for symbol in symbols:
        asked = None if targets is None else _pct(Fraction(int(targets.get(symbol, 0)), 10_000))
        price = prices.get(symbol)
        got = None
        if price is not None and value > 0:
            got = _pct(Fraction(int(holdings.get(symbol, 0)) * price, MICRO * value))
        out[symbol] = {"asked": asked, "got": got}
    return out
