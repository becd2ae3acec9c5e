"""A weights competition replayed over frozen bars, every step recorded as an event.

Each round: read every price once at the round's time (no look-ahead, C-2,
W-RND-2), ask every agent in turn with the same view, trade its answer through
the shared weights rebalance (W-EXE-*), and append the round's events in one
transaction, so an interruption leaves whole rounds only. Standings are
computed from the entry values (W-SCO-1, W-SCO-2) and can be re-derived from
the recorded prices and fills.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

import numpy as np

from tradeleague.agents import WeightsAgent, WeightsView
from tradeleague.clock import ReplayClock
from tradeleague.events import Event, EventKind
from tradeleague.market import Dataset, take_snapshot
from tradeleague.money import Usd, usd
from tradeleague.sim import Portfolio, RebalanceParams, rebalance
from tradeleague.stats import max_drawdown, season_return
from tradeleague.store import Store
from tradeleague.store.portfolio import account_opened, order_filled

__all__ = ["CompetitionConfig", "Standing", "run_competition"]


@dataclass(frozen=True, kw_only=True)
class CompetitionConfig:
    """The rules of one replayed competition (defaults: the weights league's preset)."""

    cash: Usd = field(default_factory=lambda: usd(10_000))
    params: RebalanceParams = field(default_factory=RebalanceParams)
    max_weight_bps: int = 10_000
    benchmark: str | None = None
    history: int = 30
    """How many past closes each agent is shown per symbol."""


@dataclass(slots=True)
class Standing:
    """One agent's record so far."""

    name: str
    portfolio: Portfolio
    values: list[int] = field(default_factory=list)
    trades: int = 0
    decisions: int = 0

    def season_return(self, cash: int) -> Fraction:
        """Return the season return over the entries (W-SCO-2)."""
        return season_return(cash, self.values) if self.values else Fraction(0)

    def max_drawdown(self) -> Fraction:
        """Return the max drawdown over the entries (W-SCO-2), as a positive fraction."""
        return max_drawdown(self.values) if self.values else Fraction(0)


def _history(dataset: Dataset, symbol: str, moment: datetime, keep: int) -> list[Usd]:
    series = dataset[symbol]
    seen = int(np.searchsorted(series.observed_close, int(moment.timestamp()), side="right"))
    return [Usd(int(c)) for c in series.close[max(0, seen - keep) : seen].tolist()]


def run_competition(
    store: Store,
    stream: str,
    dataset: Dataset,
    agents: Sequence[WeightsAgent],
    rounds: Sequence[datetime],
    config: CompetitionConfig | None = None,
    on_round: Callable[[int, datetime], None] | None = None,
) -> list[Standing]:
    """Replay ``rounds`` for ``agents`` over ``dataset``, recording to ``store`` under ``stream``.

    Returns the standings in the order the agents were given.
    """
    config = config or CompetitionConfig()
    if not rounds:
        raise ValueError("no rounds to play: the dataset has no trading day in range")
    clock = ReplayClock(rounds[0])
    standings = [Standing(a.name, Portfolio.open(config.cash)) for a in agents]
    opening = [
        Event(
            stream,
            EventKind.SEASON_STARTED,
            {
                "dataset": dataset.label,
                "synthetic": dataset.synthetic,
                "agents": [a.name for a in agents],
                "cash": str(int(config.cash)),
                "rounds": len(rounds),
            },
            clock.now(),
        )
    ]
    opening += [account_opened(stream, s.name, config.cash, clock.now()) for s in standings]
    store.append(opening)
    for index, moment in enumerate(rounds):
        clock.set(moment)
        store.append(_play_round(stream, dataset, agents, standings, moment, config))
        if on_round is not None:
            on_round(index, moment)
    return standings


def _play_round(
    stream: str,
    dataset: Dataset,
    agents: Sequence[WeightsAgent],
    standings: list[Standing],
    moment: datetime,
    config: CompetitionConfig,
) -> list[Event]:
    snap = take_snapshot(dataset, moment)
    prices = dict(snap.prices)
    events = [
        Event(
            stream,
            EventKind.ROUND_STARTED,
            {"time": moment.isoformat(), "prices": {s: str(p) for s, p in sorted(prices.items())}},
            moment,
        )
    ]
    history = {s: _history(dataset, s, moment, config.history) for s in prices}
    symbols = tuple(sorted(prices))
    for agent, standing in zip(agents, standings, strict=True):
        book = standing.portfolio
        view = WeightsView(
            time=moment,
            symbols=symbols,
            prices=prices,
            history=history,
            cash=book.cash,
            holdings=dict(book.positions),
            benchmark=config.benchmark if config.benchmark in prices else None,
            max_weight_bps=config.max_weight_bps,
        )
        targets = agent.decide(view)
        payload: dict[str, object] = {
            "account": standing.name,
            "targets": None if targets is None else dict(sorted(targets.items())),
        }
        events.append(Event(stream, EventKind.DECISION_MADE, payload, moment))
        standing.decisions += 1
        if targets is not None:
            result = rebalance(book, targets, prices, params=config.params)
            events += [order_filled(stream, standing.name, f, moment) for f in result.fills]
            standing.trades += len(result.fills)
            book = result.portfolio
        standing.portfolio = book
        standing.values.append(book.equity(prices))
    return events
