"""Boards: models, providers and tiers, with the luck figures beside them (SPEC D-SCO, D-LCK).

Every figure is computed from a season's public log rows alone
(``SeasonView.log``), so anyone holding the logs can reproduce the board
(D-PUB-4). A model's balance is the balance the broker reported after its
latest finished round (D-TRD-3); its ROI is ``(balance - baseline) / baseline``
(D-SCO-1). Hit rate counts wins and losses only; the answer rate is settled
trades over the rounds a model was due in, void rounds not being due for
anyone (D-SCO-2). Rank: ROI, then hit rate (an undefined rate last), then
balance, then name so that ties are total (D-SCO-3), among the models with at
least one settled trade; a model with none (no key, every answer a skip) is
listed after them unranked, "no settled trade" (ours: a model that never
played must not sit above those that traded and lost). Provider and tier rows
sum their accounts (D-SCO-5). The luck columns (D-LCK-1, D-LCK-2) rest on
``wins + losses`` (the trades the hit rate rests on); the luckiest-of-N line
(D-LCK-3) is taken at the roster's median of that count (ours).
"""

from __future__ import annotations

import enum
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from fractions import Fraction

from tradeleague.formats.direction.ledger import Entrant, LogRow, SeasonView
from tradeleague.money import MICRO, Usd
from tradeleague.stats import (
    ArenaTally,
    HitRateInterval,
    RoundResult,
    answer_rate,
    break_even_hit_rate,
    combine,
    expected_top_hit_rate,
    hit_rate,
    max_drawdown,
    place,
    roi,
    streak,
    trades_to_prove,
    wald_interval,
)

__all__ = [
    "UNRANKED_TEXT",
    "Board",
    "GroupRow",
    "ModelRow",
    "UnrankedReason",
    "build_board",
    "model_row",
    "paper_values",
    "rank_rows",
]

_OUTCOMES = {"win": RoundResult.WIN, "loss": RoundResult.LOSS, "draw": RoundResult.DRAW}


class UnrankedReason(enum.StrEnum):
    """Why a model is not ranked (ours, beside D-SCO-3)."""

    NO_SETTLED_TRADE = "no_settled_trade"


UNRANKED_TEXT: Mapping[str, str] = {UnrankedReason.NO_SETTLED_TRADE: "no settled trade"}
"""Each reason as a person reads it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRow:
    """One account on the board."""

    entrant: Entrant
    tally: ArenaTally
    skips: dict[str, int]
    """Skip reason -> count, void rounds included (they are not due, so not in ``tally``)."""
    streak: int
    rank: int | None
    """1, 2, 3... among the ranked; ``None`` when unranked (``unranked`` says why)."""
    unranked: UnrankedReason | None
    sparkline: tuple[Usd, ...]
    """Balances after each of the last settled rounds (D-SEA-1), oldest first."""
    max_drawdown: Fraction
    """The worst fall from a peak of the balance path, the season's baseline first (ours)."""

    @property
    def roi(self) -> Fraction:
        """Return the ROI (D-SCO-1)."""
        return roi(self.tally)

    @property
    def hit_rate(self) -> Fraction | None:
        """Return the hit rate, ``None`` before any win or loss (D-SCO-2)."""
        return hit_rate(self.tally)

    @property
    def answer_rate(self) -> Fraction | None:
        """Return the answer rate (D-SCO-2)."""
        return answer_rate(self.tally)

    @property
    def decided(self) -> int:
        """Return wins + losses: what the hit rate and its interval rest on."""
        return self.tally.wins + self.tally.losses

    @property
    def interval(self) -> HitRateInterval | None:
        """Return the 95% normal-approximation interval of the hit rate (D-LCK-1)."""
        rate = self.hit_rate
        return None if rate is None else wald_interval(float(rate), self.decided)

    @property
    def contains_coin(self) -> bool | None:
        """Return whether the interval contains 50% (D-LCK-1)."""
        ci = self.interval
        return None if ci is None else ci.contains(0.5)

    @property
    def trades_to_prove(self) -> int | None:
        """Return the trades needed to tell the rate from a coin flip (D-LCK-2)."""
        rate = self.hit_rate
        return None if rate is None else trades_to_prove(float(rate))


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupRow:
    """A provider or tier row: the sum of its accounts, scored as one (D-SCO-5)."""

    name: str
    members: tuple[str, ...]
    tally: ArenaTally

    @property
    def roi(self) -> Fraction:
        """Return sum of balances over sum of baselines, minus one."""
        return roi(self.tally)

    @property
    def hit_rate(self) -> Fraction | None:
        """Return summed wins over summed wins and losses."""
        return hit_rate(self.tally)

    @property
    def answer_rate(self) -> Fraction | None:
        """Return summed settled over summed due rounds."""
        return answer_rate(self.tally)


@dataclass(frozen=True, slots=True, kw_only=True)
class Board:
    """A season's board and its luck lines."""

    season: str
    scoring_version: str
    payout_ppm: int
    rounds: int
    void_rounds: int
    models: tuple[ModelRow, ...]
    providers: tuple[GroupRow, ...]
    tiers: tuple[GroupRow, ...]
    visitors: tuple[ModelRow, ...]
    luckiest_trades: int
    """The sample size the luckiest-of-N line is taken at (the roster's median)."""
    luckiest: float | None
    """Expected top hit rate of N coin flips at that size (D-LCK-3)."""
    first_day: date | None = None
    """The season's first day (UTC): each model's training cutoff is read against it."""

    @property
    def break_even(self) -> Fraction:
        """Return the break-even hit rate 1 / (1 + payout) (D-SCO-6)."""
        return break_even_hit_rate(Fraction(self.payout_ppm, MICRO))

    def below_break_even(self, row: ModelRow | GroupRow) -> bool:
        """Return whether ``row``'s hit rate is below break-even (shown greyed, D-SCO-6)."""
        rate = row.hit_rate
        return rate is not None and rate < self.break_even


def model_row(entrant: Entrant, rows: Sequence[LogRow], baseline: Usd, sparkline: int) -> ModelRow:
    """Return ``entrant``'s unranked row from its log rows alone (D-SCO-1..4, D-PUB-4)."""
    results = Counter(r.result for r in rows)
    skips = {k: v for k, v in sorted(results.items()) if k not in _OUTCOMES}
    balance = rows[-1].balance_after if rows else baseline
    tally = ArenaTally(
        balance=balance,
        baseline=baseline,
        wins=results["win"],
        losses=results["loss"],
        draws=results["draw"],
        skips=sum(v for k, v in skips.items() if k != "void"),
    )
    settled = [r.balance_after for r in rows if r.settled]
    path = [baseline, *settled]
    return ModelRow(
        entrant=entrant,
        tally=tally,
        skips=skips,
        streak=streak(_OUTCOMES[r.result] for r in rows if r.result in _OUTCOMES),
        rank=None,
        unranked=None,
        sparkline=tuple(settled[-sparkline:]),
        max_drawdown=max_drawdown(path) if baseline > 0 else Fraction(0),
    )


def _rank_key(row: ModelRow) -> tuple[Fraction, Fraction, int, str]:
    rate = row.hit_rate
    hit = rate if rate is not None else Fraction(-1)
    return (-row.roi, -hit, -row.tally.balance, row.entrant.name)


def _unranked(row: ModelRow) -> UnrankedReason | None:
    return UnrankedReason.NO_SETTLED_TRADE if row.tally.settled == 0 else None


def rank_rows(rows: Iterable[ModelRow]) -> tuple[ModelRow, ...]:
    """Return ``rows`` ranked by ROI, hit rate, balance (then name), ranks 1.. set (D-SCO-3).

    A model with no settled trade follows the ranked ones, unranked, in the same order.
    """
    return tuple(
        replace(
            p.row, rank=p.rank, unranked=None if p.unranked is None else UnrankedReason(p.unranked)
        )
        for p in place(rows, order=_rank_key, unranked=_unranked)
    )


def _groups(rows: Sequence[ModelRow], attribute: str) -> tuple[GroupRow, ...]:
    names = sorted({getattr(r.entrant, attribute) for r in rows})
    groups = []
    for name in names:
        members = [r for r in rows if getattr(r.entrant, attribute) == name]
        groups.append(
            GroupRow(
                name=name,
                members=tuple(r.entrant.name for r in members),
                tally=combine(r.tally for r in members),
            )
        )
    return tuple(sorted(groups, key=lambda g: (-g.roi, g.name)))


def build_board(season: SeasonView, *, scoring_version: str, sparkline: int) -> Board:
    """Return ``season``'s board, computed from its public log rows only (D-PUB-4).

    ``sparkline`` is the preset's count of settled rounds the sparkline covers (D-SEA-1).
    """
    baseline = season.start_balance
    models = rank_rows(model_row(e, season.log(e.name), baseline, sparkline) for e in season.roster)
    visitors = rank_rows(
        model_row(e, season.log(e.name), baseline, sparkline) for e in season.shown_visitors()
    )
    decided = [r.decided for r in models]
    median = int(statistics.median_low(decided)) if decided else 0
    luckiest = expected_top_hit_rate(median, len(models)) if median > 0 else None
    finished = season.finished_rounds()
    return Board(
        season=season.season,
        scoring_version=scoring_version,
        payout_ppm=season.payout_ppm,
        rounds=len(finished),
        void_rounds=sum(1 for r in finished if r.void),
        models=models,
        providers=_groups(models, "provider") if models else (),
        tiers=_groups(models, "tier") if models else (),
        visitors=visitors,
        luckiest_trades=median,
        luckiest=luckiest,
        first_day=_first_day(season.started.get("started_at")),
    )


def _first_day(started_at: object) -> date | None:
    try:
        return datetime.fromisoformat(str(started_at).replace("Z", "+00:00")).date()
    except ValueError:
        return None


def paper_values(board: Board) -> dict[str, tuple[int, int]]:
    """Return each model's starting and current balance in micro-dollars, in board order."""
    return {r.entrant.name: (int(r.tally.baseline), int(r.tally.balance)) for r in board.models}
