"""Rounds, divisions and turns (W-RND-1..3, W-DIV-1..3, W-SKP-1..4).

Pure rules over times and participants; the shell asks them with times taken
from its ``Clock``.

- W-RND-1: a round belongs to one hour, 15:00..19:00 UTC, and starts only in
  the first ten minutes of it, while a season runs and the market is open.
- W-DIV-1/2: an Open agent has one turn per trading day, in the day's first
  round; a Pro agent has a turn in every round. Caps: 200 and 50.
- W-SKP-1: Open turns beyond the house model's daily allowance skip the day.
- W-SKP-2: a Pro agent not asked 50 minutes into the hour is skipped.
- W-SKP-3: an agent whose prompt or key changed, or that was resumed, after
  the round's prices were read is skipped for that round.
- W-SKP-4: agents are asked in the order of who was asked longest ago (never
  asked first; ties by creation, then id); a skip does not count as asked.

The Open round (W-DIV-1, W-SKP-1, W-RNK-4; ours, read from seed 000): the day's
*first played round* is the Open round, the only one of the day in which Open
agents take part and the only one after which the Open table is ranked. A
closed hour (W-MKT-2) plays no round, so the turn moves to the first hour that
does. An Open agent not asked in the Open round gets no other turn that day:
one created after the round's start waits for the next trading day (W-RND-3);
one changed after the read is skipped for that round (W-SKP-3), which is the
day's turn; once the house model's allowance is spent, the rest are skipped
for the day (``allowance_spent``); and one whose turn would come after the
day ends is skipped (``day_ended``). The seed's "an Open agent not asked by the
day's end is skipped" is read as these skips, each recorded in the Open round,
not as a turn in a later round: a later round would rank Open again and
unrank everyone who played in the first (W-RNK-1).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from tradeleague.formats.weights.preset import WeightsPreset

__all__ = [
    "Division",
    "SkipCode",
    "TurnCandidate",
    "asking_order",
    "division_cap",
    "is_due",
    "is_open_round",
    "round_hours_on",
    "round_slot",
    "skip_before_asking",
]


class Division(enum.StrEnum):
    # Rules: W-DIV-3
    """The two divisions; an agent's is chosen at creation and never changes."""

    OPEN = "open"
    PRO = "pro"


class SkipCode(enum.StrEnum):
    """Why a turn was skipped (C-7, W-SKP-1..3)."""

    ALLOWANCE_SPENT = "allowance_spent"
    """W-SKP-1: the house model's daily allowance ran out."""
    DAY_ENDED = "day_ended"
    """W-SKP-1: an Open agent not asked by the day's end."""
    NOT_ASKED_IN_TIME = "not_asked_in_time"
    """W-SKP-2: a Pro agent not asked 50 minutes into the hour."""
    CHANGED_AFTER_READ = "changed_after_read"
    """W-SKP-3: prompt or key changed, or resumed, after the prices were read."""
    LEAGUE_FAULT = "league_fault"
    """W-SKP-3: a fault on the league's side (logged)."""


def division_cap(division: Division, preset: WeightsPreset) -> int:
    """Return the most agents ``division`` may hold (W-DIV-1: 200, W-DIV-2: 50)."""
    return preset.open_cap if division is Division.OPEN else preset.pro_cap


def round_slot(moment: datetime, preset: WeightsPreset) -> datetime | None:
    """Return the hour a round may start for at ``moment``, or ``None`` (W-RND-1).

    Examples
    --------
    >>> from datetime import UTC
    >>> round_slot(datetime(2026, 10, 5, 15, 9, tzinfo=UTC), WeightsPreset())
    datetime.datetime(2026, 10, 5, 15, 0, tzinfo=datetime.timezone.utc)
    >>> round_slot(datetime(2026, 10, 5, 15, 10, tzinfo=UTC), WeightsPreset()) is None
    True
    """
    hour = moment.replace(minute=0, second=0, microsecond=0)
    if moment.hour not in preset.round_hours or moment - hour >= preset.round_start_window:
        return None
    return hour


def round_hours_on(day: date, preset: WeightsPreset) -> tuple[datetime, ...]:
    """Return the hours a round may start on ``day`` (UTC), in order."""
    return tuple(datetime.combine(day, time(h), tzinfo=UTC) for h in preset.round_hours)


def is_open_round(hour: datetime, played: Iterable[datetime]) -> bool:
    """Return whether the round of ``hour`` is its day's Open round (W-DIV-1, W-RNK-4).

    It is when no other round has been played on the same UTC day: the day's
    first played round is the Open round (see the module docstring).

    Parameters
    ----------
    hour
        The round's hour.
    played
        The hours of the rounds already played (market-closed hours excluded).

    Examples
    --------
    >>> from datetime import UTC
    >>> h15 = datetime(2026, 10, 5, 15, tzinfo=UTC)
    >>> is_open_round(h15, []), is_open_round(h15.replace(hour=16), [h15])
    (True, False)
    """
    return all(p.date() != hour.date() or p == hour for p in played)


def is_due(division: Division, open_round: bool) -> bool:
    """Return whether an agent of ``division`` is due a turn in this round (W-DIV-1, W-DIV-2).

    A Pro agent is due in every round; an Open agent only in the day's Open
    round (``open_round``, see ``is_open_round``), never in a later round of
    the same day.
    """
    return division is Division.PRO or open_round


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnCandidate:
    """An agent in a round, with what the asking order and the skips need."""

    agent: str
    created_at: datetime
    last_asked: datetime | None
    changed_at: datetime | None = None
    """The latest prompt change, key change or resume."""


def asking_order(candidates: Sequence[TurnCandidate]) -> list[TurnCandidate]:
    """Return ``candidates`` in asking order: asked longest ago first (W-SKP-4).

    Never asked comes first; ties go to the earlier creation, then the lower id.
    """
    return sorted(
        candidates,
        key=lambda c: (
            c.last_asked is not None,
            c.last_asked or c.created_at,
            c.created_at,
            c.agent,
        ),
    )


def skip_before_asking(
    candidate: TurnCandidate,
    division: Division,
    prices_read_at: datetime,
    asked_at: datetime,
    round_hour: datetime,
    open_turns_used: int,
    preset: WeightsPreset,
) -> SkipCode | None:
    """Return why ``candidate`` is skipped instead of asked at ``asked_at``, or ``None``.

    Parameters
    ----------
    candidate
        The agent.
    division
        Its division.
    prices_read_at
        When the round's prices were read.
    asked_at
        When its turn would be asked.
    round_hour
        The round's hour.
    open_turns_used
        House-model turns already used today (Open only).
    preset
        The cut-off and the allowance.
    """
    if candidate.changed_at is not None and candidate.changed_at > prices_read_at:
        return SkipCode.CHANGED_AFTER_READ
    if division is Division.OPEN:
        if open_turns_used >= preset.open_daily_allowance:
            return SkipCode.ALLOWANCE_SPENT
        if asked_at.date() != round_hour.date():
            return SkipCode.DAY_ENDED
        return None
    if asked_at - round_hour >= preset.pro_cutoff:
        return SkipCode.NOT_ASKED_IN_TIME
    return None
