"""Scoring: several metrics, not return alone (SPEC T-SCO-1), with ST-1 counts and ST-2 verdicts.

Return and maximum drawdown are exact over the equity path (``stats.returns``);
Sharpe and Sortino over its step returns (``stats.risk``); win rate over closed
trades (a close, whole or partial, whose realised P&L after fees is positive);
exposure is the mean over the path's points of gross exposure / equity. The
board's verdicts compare each agent's step returns with cash and with holding
SPY by the paired bootstrap, in words that say the direction (better, worse,
not distinguishable: ``stats.verdicts``); the luckiest-of-N line beside them is the
no-skill null simulated under the league's rules (``null.py``, ST-2).

Ranking is by return, then smaller drawdown, then name, among the agents that
held a position (open or closed) at some point of the season; an agent that
never did is listed after them, unranked, with that reason (ours: sitting in
cash all season is not a result to rank above those that traded and lost).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from tradeleague.stats.alpha import AlphaBeta, alpha_beta
from tradeleague.stats.bootstrap import paired_bootstrap
from tradeleague.stats.ranking import Placed, place
from tradeleague.stats.returns import max_drawdown, season_return, step_returns
from tradeleague.stats.risk import sharpe, sortino
from tradeleague.stats.rounding import round_half_up
from tradeleague.stats.verdicts import Outcome, outcome

__all__ = [
    "UNRANKED_TEXT",
    "Metrics",
    "UnrankedReason",
    "Verdicts",
    "metrics",
    "rank",
    "unranked_reason",
    "verdicts",
]

PERIODS_PER_YEAR = 365.0
"""Daily steps on a 24/7 season (the cycle runs every day)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Metrics:
    """T-SCO-1's metrics and the counts they rest on (ST-1)."""

    ret: Fraction
    max_drawdown: Fraction
    sharpe: float | None
    sortino: float | None
    win_rate: Fraction | None
    exposure: Fraction
    trades: int
    closed_trades: int
    decisions: int

    def to_report(self) -> dict[str, object]:
        """Return the metrics as decimal strings rounded to 2 places (percent or ratio) or null."""

        def ratio(v: float | None) -> str | None:
            return None if v is None else str(round_half_up(v, 2))

        return {
            "return": str(round_half_up(self.ret * 100, 2)),
            "max_drawdown": str(round_half_up(self.max_drawdown * 100, 2)),
            "sharpe": ratio(self.sharpe),
            "sortino": ratio(self.sortino),
            "win_rate": None
            if self.win_rate is None
            else str(round_half_up(self.win_rate * 100, 2)),
            "exposure": str(round_half_up(self.exposure * 100, 2)),
            "trades": self.trades,
            "closed_trades": self.closed_trades,
            "decisions": self.decisions,
        }


def metrics(
    start: int,
    equity: Sequence[int],
    gross: Sequence[int],
    realised: Sequence[int],
    *,
    trades: int,
    decisions: int,
) -> Metrics:
    """Return T-SCO-1's metrics.

    Parameters
    ----------
    start
        Starting equity, micro-dollars.
    equity, gross
        Equity and gross exposure at each cycle (same length, at least one).
    realised
        Realised P&L of every closed trade.
    trades, decisions
        How many fills and decisions the figures rest on (ST-1).
    """
    path = [start, *equity]
    steps = [float(r) for r in step_returns(path)]
    wins = sum(1 for r in realised if r > 0)
    exposure = (
        sum(
            (Fraction(g, e) if e > 0 else Fraction(0) for g, e in zip(gross, equity, strict=True)),
            Fraction(0),
        )
        / len(equity)
        if equity
        else Fraction(0)
    )
    return Metrics(
        ret=season_return(start, path),
        max_drawdown=max_drawdown(path),
        sharpe=sharpe(steps, periods_per_year=PERIODS_PER_YEAR),
        sortino=sortino(steps, periods_per_year=PERIODS_PER_YEAR),
        win_rate=Fraction(wins, len(realised)) if realised else None,
        exposure=exposure,
        trades=trades,
        closed_trades=len(realised),
        decisions=decisions,
    )


class UnrankedReason(enum.StrEnum):
    """Why an agent is not ranked (ours)."""

    NO_POSITION = "no_position"


UNRANKED_TEXT: Mapping[str, str] = {UnrankedReason.NO_POSITION: "held no position this season"}
"""Each reason as a person reads it."""


def unranked_reason(m: Metrics) -> UnrankedReason | None:
    """Return why an agent with metrics ``m`` is unranked: no fill, so no position ever held."""
    return UnrankedReason.NO_POSITION if m.trades == 0 else None


def rank(scores: dict[str, Metrics]) -> list[Placed[str]]:
    """Return the agents in board order: the ranked first, then the unranked.

    The ranked are ordered by return, then smaller drawdown, then name (1 best);
    those that never held a position follow, unranked, in the same order.
    """
    return place(
        scores,
        order=lambda n: (-scores[n].ret, scores[n].max_drawdown, n),
        unranked=lambda n: unranked_reason(scores[n]),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdicts:
    """ST-2 beside one agent: better, worse or not distinguishable from cash and holding SPY."""

    vs_cash: Outcome
    vs_spy: Outcome
    steps: int
    alpha: AlphaBeta | None = None
    """Beta against SPY and the alpha left (``stats.alpha``), ``None`` with too few steps."""
    pairs: tuple[tuple[float, float], ...] = ()
    """Each step's return, the agent's then SPY's (the agent page's scatter)."""


def verdicts(
    agent_equity: Sequence[int],
    spy_path: Sequence[int],
    start: int,
    seed: int = 7,
    *,
    alpha_seed: int | None = None,
) -> Verdicts:
    """Return the paired-bootstrap verdicts of one agent against cash and SPY (ST-2).

    With them, the agent's beta against SPY and its alpha, from its own generator
    seeded by ``alpha_seed`` (the board's: from the season and the agent; default
    from ``seed``), so the verdicts' draws are not moved by it.
    """
    agent = [float(r) for r in step_returns([start, *agent_equity])]
    spy = [float(r) for r in step_returns(list(spy_path))]
    n = min(len(agent), len(spy))
    if n < 2:
        return Verdicts(vs_cash=Outcome.TOO_FEW, vs_spy=Outcome.TOO_FEW, steps=n)
    rng = np.random.default_rng(seed)
    cash = paired_bootstrap(agent[:n], [0.0] * n, rng=rng, resamples=2_000)
    hold = paired_bootstrap(agent[:n], spy[:n], rng=rng, resamples=2_000)
    fit = alpha_beta(
        agent[:n],
        spy[:n],
        rng=np.random.default_rng([seed, 1] if alpha_seed is None else alpha_seed),
        periods_per_year=PERIODS_PER_YEAR,
    )
    return Verdicts(
        vs_cash=outcome(cash),
        vs_spy=outcome(hold),
        steps=n,
        alpha=fit,
        pairs=tuple(zip(agent[:n], spy[:n], strict=True)),
    )
