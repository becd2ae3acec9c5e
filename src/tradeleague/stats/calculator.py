"""The seed's luck calculator: every number of "How much of this is luck" at once.

SPEC D-LCK-1..3 and D-SCO-6, as section 07 of seed 001 prints them for an
observed hit rate over a number of settled trades: the 95% interval and
whether it contains a coin flip, break-even against the payout, a coin flip's
expected P&L per round, the trades (and days of rounds) needed to prove the
rate, and the luckiest of N coin flips at the same sample size.

:class:`LuckReport` keeps the unrounded values; :meth:`LuckReport.figures`
rounds them the way they are published, by ST-3 (exact half toward the
higher value):

=============================  ==============================  ========
figure                         unit                            decimals
=============================  ==============================  ========
ci_low, ci_high, half_width    percent (points for the width)  1
contains_coin_flip             yes/no, from unrounded values   -
break_even                     percent                         2
ev_per_round_at_coin_flip      the stake's currency            2
trades_to_prove                trades, rounded up              0
days_to_prove                  days of rounds                  1
luckiest_of_n                  percent                         1
=============================  ==============================  ========

For the seed's example (53.1% over 750 trades, 15 models, 80% payout, stake
10, 270 rounds a day) that is 49.5, 56.7, 3.6, yes, 55.56, -1.00, 2040, 7.6
and 53.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from tradeleague.stats.binary_luck import (
    HitRateInterval,
    break_even_hit_rate,
    expected_pnl_per_round,
    expected_top_hit_rate,
    trades_to_prove,
    wald_interval,
)
from tradeleague.stats.rounding import percent, round_half_up

__all__ = ["LuckFigures", "LuckReport", "luck_report"]

COIN_FLIP = Fraction(1, 2)


@dataclass(frozen=True, slots=True, kw_only=True)
class LuckFigures:
    """The calculator's figures rounded for publication (see the module table)."""

    ci_low: Decimal
    ci_high: Decimal
    half_width: Decimal
    contains_coin_flip: bool
    break_even: Decimal
    ev_per_round_at_coin_flip: Decimal
    trades_to_prove: int | None
    days_to_prove: Decimal | None
    luckiest_of_n: Decimal

    def as_json(self) -> dict[str, float | int | bool | None]:
        """Return the figures as one JSON-ready object, decimals as plain numbers."""
        return {
            "ci_low": float(self.ci_low),
            "ci_high": float(self.ci_high),
            "half_width": float(self.half_width),
            "contains_coin_flip": self.contains_coin_flip,
            "break_even": float(self.break_even),
            "ev_per_round_at_coin_flip": float(self.ev_per_round_at_coin_flip),
            "trades_to_prove": self.trades_to_prove,
            "days_to_prove": None if self.days_to_prove is None else float(self.days_to_prove),
            "luckiest_of_n": float(self.luckiest_of_n),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LuckReport:
    """The calculator's inputs and unrounded answers.

    Attributes
    ----------
    hit_rate, trades, models, payout, stake, rounds_per_day
        The inputs (rates and payout as fractions of one).
    interval
        The 95% Wald interval of the hit rate (D-LCK-1).
    break_even
        1 / (1 + payout) (D-SCO-6).
    ev_at_coin_flip
        Expected P&L per round at a 50% hit rate, in the stake's currency (D-SCO-6).
    ev_at_hit_rate
        Expected P&L per round at the observed hit rate.
    trades_to_prove, days_to_prove
        D-LCK-2; ``None`` at exactly 50%, where no sample size suffices.
    luckiest
        Expected top hit rate of ``models`` coin flips at ``trades`` each (D-LCK-3).
    """

    hit_rate: Fraction
    trades: int
    models: int
    payout: Fraction
    stake: Fraction
    rounds_per_day: Fraction
    interval: HitRateInterval
    break_even: Fraction
    ev_at_coin_flip: Fraction
    ev_at_hit_rate: Fraction
    trades_to_prove: int | None
    days_to_prove: Fraction | None
    luckiest: float

    @property
    def contains_coin_flip(self) -> bool:
        """Return whether the interval contains 50% (unrounded ends)."""
        return self.interval.contains(float(COIN_FLIP))

    def figures(self) -> LuckFigures:
        """Return the figures rounded as published (ST-3; see the module table)."""
        return LuckFigures(
            ci_low=percent(self.interval.low, 1),
            ci_high=percent(self.interval.high, 1),
            half_width=percent(self.interval.half_width, 1),
            contains_coin_flip=self.contains_coin_flip,
            break_even=percent(self.break_even, 2),
            ev_per_round_at_coin_flip=round_half_up(self.ev_at_coin_flip, 2),
            trades_to_prove=self.trades_to_prove,
            days_to_prove=(
                None if self.days_to_prove is None else round_half_up(self.days_to_prove, 1)
            ),
            luckiest_of_n=percent(self.luckiest, 1),
        )


def luck_report(
    *,
    hit_rate: Fraction,
    trades: int,
    models: int = 15,
    payout: Fraction = Fraction(4, 5),
    stake: Fraction = Fraction(10),
    rounds_per_day: Fraction = Fraction(270),
) -> LuckReport:
    """Compute every figure of the luck calculator (D-LCK-1..3, D-SCO-6).

    Parameters
    ----------
    hit_rate
        Observed hit rate, a fraction of one in [0, 1] (``Fraction(531, 1000)``).
    trades
        Settled trades it rests on, 1 or more.
    models
        Models on the board (the N of luckiest-of-N), 1 or more.
    payout
        Fraction of the stake a win returns, positive (``Fraction(4, 5)`` for 80%).
    stake
        Stake per round, positive, in any currency unit.
    rounds_per_day
        Rounds a model trades in a day, positive (the seed uses 270).

    Raises
    ------
    ValueError
        For an input out of range, with a sentence naming it.
    """
    if not 0 <= hit_rate <= 1:
        raise ValueError(f"the hit rate must be between 0 and 1, not {hit_rate}")
    if stake <= 0:
        raise ValueError(f"the stake must be positive, not {stake}")
    if rounds_per_day <= 0:
        raise ValueError(f"rounds per day must be positive, not {rounds_per_day}")
    p = float(hit_rate)
    needed = trades_to_prove(p)
    return LuckReport(
        hit_rate=hit_rate,
        trades=trades,
        models=models,
        payout=payout,
        stake=stake,
        rounds_per_day=rounds_per_day,
        interval=wald_interval(p, trades),
        break_even=break_even_hit_rate(payout),
        ev_at_coin_flip=expected_pnl_per_round(COIN_FLIP, payout, stake),
        ev_at_hit_rate=expected_pnl_per_round(hit_rate, payout, stake),
        trades_to_prove=needed,
        days_to_prove=None if needed is None else Fraction(needed) / rounds_per_day,
        luckiest=expected_top_hit_rate(trades, models),
    )
