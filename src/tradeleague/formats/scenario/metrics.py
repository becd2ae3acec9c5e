"""A finished run's score: return, Sharpe, Sortino, drawdown, volatility (S-SCO-1).

Computed once, from the equity path (starting cash first, then equity after
each step; after a liquidation the last value is the liquidation equity, S-LIQ-1)
with `tradeleague.stats`:

- return = final equity / starting cash - 1, exact;
- Sharpe = sqrt(periods per year) x mean step return / sample std of step
  returns (risk-free 0: "excess" over a zero rate);
- Sortino = the same over the sample std of the *negative* step returns (the
  seed's wording, `DownsideDeviation.NEGATIVE_STD`);
- max drawdown = worst peak-to-trough fall, a positive fraction (lower is better);
- volatility = sample std of step returns, per step (informational).

A ratio that is undefined (too few steps, zero spread) is ``None``. If the
equity ever reaches zero or below, step returns stop there (a return from a
non-positive value is undefined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from tradeleague.money import Usd
from tradeleague.stats import (
    DownsideDeviation,
    max_drawdown,
    season_return,
    sharpe,
    sortino,
    step_returns,
    volatility,
)

__all__ = ["METRICS", "ScenarioResults", "compute_results", "higher_is_better"]

METRICS: tuple[str, ...] = ("return", "sharpe", "sortino", "max_drawdown", "volatility")
"""The metrics a reader may rank a leaderboard by (S-SCO-2)."""

_LOWER_IS_BETTER = frozenset({"max_drawdown", "volatility"})


def higher_is_better(metric: str) -> bool:
    """Return whether a larger ``metric`` ranks first (drawdown and volatility: no)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; one of {', '.join(METRICS)}")
    return metric not in _LOWER_IS_BETTER


@dataclass(frozen=True, slots=True)
class ScenarioResults:
    """The metrics of one finished run (S-API-4, S-SCO-1).

    Attributes
    ----------
    total_return
        Exact final equity / starting cash - 1.
    sharpe, sortino, volatility
        Floats, or ``None`` where undefined.
    max_drawdown
        Exact worst fall, a positive fraction.
    final_equity, starting_cash
        Micro-dollars.
    liquidated
        Whether the run ended in a forced liquidation.
    steps
        Steps taken.
    """

    total_return: Fraction
    sharpe: float | None
    sortino: float | None
    max_drawdown: Fraction
    volatility: float | None
    final_equity: Usd
    starting_cash: Usd
    liquidated: bool
    steps: int

    def metric(self, name: str) -> float | None:
        """Return metric ``name`` as a float (``None`` where undefined)."""
        value: Fraction | float | None = {
            "return": self.total_return,
            "sharpe": self.sharpe,
            "sortino": self.sortino,
            "max_drawdown": self.max_drawdown,
            "volatility": self.volatility,
        }[name]
        return None if value is None else float(value)

    def to_payload(self) -> dict[str, object]:
        """Return the JSON-safe form (floats as ``repr`` text, fractions as ``n/d``)."""
        return {
            "return": _fraction_text(self.total_return),
            "sharpe": None if self.sharpe is None else repr(self.sharpe),
            "sortino": None if self.sortino is None else repr(self.sortino),
            "max_drawdown": _fraction_text(self.max_drawdown),
            "volatility": None if self.volatility is None else repr(self.volatility),
            "final_equity": str(int(self.final_equity)),
            "starting_cash": str(int(self.starting_cash)),
            "liquidated": self.liquidated,
            "steps": self.steps,
        }

    @classmethod
    def from_payload(cls, raw: Mapping[str, object]) -> ScenarioResults:
        """Rebuild results from `to_payload` output."""

        def opt(key: str) -> float | None:
            value = raw[key]
            return None if value is None else float(str(value))

        return cls(
            total_return=Fraction(str(raw["return"])),
            sharpe=opt("sharpe"),
            sortino=opt("sortino"),
            max_drawdown=Fraction(str(raw["max_drawdown"])),
            volatility=opt("volatility"),
            final_equity=Usd(int(str(raw["final_equity"]))),
            starting_cash=Usd(int(str(raw["starting_cash"]))),
            liquidated=bool(raw["liquidated"]),
            steps=int(str(raw["steps"])),
        )


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def compute_results(
    equity: Sequence[int], *, periods_per_year: float, liquidated: bool
) -> ScenarioResults:
    """Return the metrics of an equity path whose first value is the starting cash.

    Raises
    ------
    ValueError
        If the path is empty or starts at a non-positive value.
    """
    if not equity or equity[0] <= 0:
        raise ValueError("an equity path starts with the (positive) starting cash")
    usable = list(equity)
    for i, value in enumerate(usable):
        if value <= 0:
            usable = usable[: i + 1]
            break
    returns = step_returns(usable)
    return ScenarioResults(
        total_return=season_return(equity[0], equity),
        sharpe=sharpe(returns, periods_per_year=periods_per_year),
        sortino=sortino(
            returns, periods_per_year=periods_per_year, method=DownsideDeviation.NEGATIVE_STD
        ),
        max_drawdown=max_drawdown(equity),
        volatility=volatility(returns),
        final_equity=Usd(equity[-1]),
        starting_cash=Usd(equity[0]),
        liquidated=liquidated,
        steps=len(equity) - 1,
    )
