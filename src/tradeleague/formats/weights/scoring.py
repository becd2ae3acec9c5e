"""Scoring v1 and ranking (W-SCO-1..3, W-RNK-1..4, W-SEA-3).

An agent's record is its entries: one per round in which it got a decision, a
"No decision" or a skip, each with the portfolio value at that round's prices
(W-SCO-1). Season return is measured from the starting cash to the latest
entry, max drawdown over the entries only, both in percent rounded by ST-3
(W-SCO-2; arithmetic in ``tradeleague.stats``). The chart has one point per
trading day: the value at the day's last entry (W-SCO-3).

Each division has its own table (W-RNK-1). Ranked agents are ordered by higher
return, lower drawdown, fewer trades, earlier creation, lower id (W-RNK-2),
compared on the published (rounded) percentages, so the order is the one a
reader can check against the table (ours). Ranks run 1, 2, 3 with no ties;
unranked agents follow in the same order with their reason (W-RNK-3).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal

from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.stats import drawdown_percent, place, return_percent

__all__ = [
    "AgentRecord",
    "Entry",
    "EntryKind",
    "TableRow",
    "UnrankedReason",
    "chart_points",
    "max_drawdown_pct",
    "rank_table",
    "season_return_pct",
    "unranked_reason",
]


class EntryKind(enum.StrEnum):
    """What an entry is (W-SCO-1, C-7)."""

    DECISION = "decision"
    NO_DECISION = "no_decision"
    SKIPPED = "skipped"


class UnrankedReason(enum.StrEnum):
    """Why an agent is unranked, the first that applies (W-RNK-1)."""

    FEW_TRADING_DAYS = "fewer_than_5_trading_days"
    FEW_DECISIONS = "fewer_than_3_decisions"
    NOT_IN_LATEST_ROUND = "not_in_latest_ranked_round"


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One entry in an agent's record (C-4: never changed)."""

    round: datetime
    kind: EntryKind
    value: int
    """The portfolio value at the round's prices, micro-dollars."""
    reason_code: str | None = None
    """``None`` for a decision; the No-decision or skip code otherwise."""

    @property
    def day(self) -> date:
        """Return the entry's trading day (UTC date of its round)."""
        return self.round.date()


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentRecord:
    """What the table needs of one agent."""

    agent: str
    name: str
    created_at: datetime
    entries: Sequence[Entry]
    trades: int


def season_return_pct(start: int, entries: Sequence[Entry]) -> Decimal:
    """Return the season return in percent (W-SCO-2); ``0.00`` before any entry.

    Examples
    --------
    >>> from datetime import UTC
    >>> t = datetime(2026, 10, 5, 15, tzinfo=UTC)
    >>> es = [Entry(round=t, kind=EntryKind.DECISION, value=v * 10**5)
    ...       for v in (1_023_140, 1_003_520, 1_068_400)]
    >>> season_return_pct(10**10, es), max_drawdown_pct(es)
    (Decimal('6.84'), Decimal('-1.92'))
    """
    return return_percent(start, [e.value for e in entries])


def max_drawdown_pct(entries: Sequence[Entry]) -> Decimal:
    """Return the max drawdown over the entries alone, as a negative percent (W-SCO-2)."""
    return drawdown_percent([e.value for e in entries])


def chart_points(entries: Sequence[Entry]) -> list[tuple[date, int]]:
    """Return one point per trading day: the value at that day's last entry (W-SCO-3)."""
    points: dict[date, int] = {}
    for entry in sorted(entries, key=lambda e: e.round):
        points[entry.day] = entry.value
    return sorted(points.items())


def unranked_reason(
    record: AgentRecord, latest_ranked_round: datetime | None, preset: WeightsPreset
) -> UnrankedReason | None:
    """Return the first W-RNK-1 reason ``record`` is unranked, or ``None`` if ranked."""
    if len({e.day for e in record.entries}) < preset.min_trading_days:
        return UnrankedReason.FEW_TRADING_DAYS
    if sum(e.kind is EntryKind.DECISION for e in record.entries) < preset.min_decisions:
        return UnrankedReason.FEW_DECISIONS
    if latest_ranked_round is None or all(e.round != latest_ranked_round for e in record.entries):
        return UnrankedReason.NOT_IN_LATEST_ROUND
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRow:
    """One row of a division's table."""

    agent: str
    name: str
    rank: int | None
    unranked_reason: UnrankedReason | None
    season_return: Decimal
    max_drawdown: Decimal
    trades: int
    decisions: int
    entries: int
    value: int
    scoring_version: str


def rank_table(
    records: Sequence[AgentRecord],
    latest_ranked_round: datetime | None,
    preset: WeightsPreset,
) -> list[TableRow]:
    """Return the division's table: ranked rows 1, 2, 3..., then unranked (W-RNK-2, W-RNK-3)."""
    rows = []
    for r in records:
        rows.append(
            TableRow(
                agent=r.agent,
                name=r.name,
                rank=None,
                unranked_reason=unranked_reason(r, latest_ranked_round, preset),
                season_return=season_return_pct(preset.start_cash, r.entries),
                max_drawdown=max_drawdown_pct(r.entries),
                trades=r.trades,
                decisions=sum(e.kind is EntryKind.DECISION for e in r.entries),
                entries=len(r.entries),
                value=r.entries[-1].value if r.entries else preset.start_cash,
                scoring_version=preset.scoring_version,
            )
        )
    created = {r.agent: r.created_at for r in records}

    def order(row: TableRow) -> tuple[Decimal, Decimal, int, datetime, str]:
        return (-row.season_return, -row.max_drawdown, row.trades, created[row.agent], row.agent)

    return [
        replace(p.row, rank=p.rank)
        for p in place(rows, order=order, unranked=lambda row: row.unranked_reason)
    ]
