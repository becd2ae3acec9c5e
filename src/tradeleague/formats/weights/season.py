"""Seasons, agents and owners (W-SEA-1, W-SEA-2, W-REC-1, W-REC-2, W-DIV-3).

- W-SEA-1: a season lasts 28 days from a Monday 00:00 UTC; an agent joining
  mid-season starts with 10,000 on the day it joins.
- W-SEA-2: when a season ends its table is final and nothing trades; with no
  season running no new agent can join.
- W-REC-1: one agent per owner, and an agent cannot be deleted and started
  again within a season.
- W-REC-2: an owner changes the prompt at most three times a UTC day; a change
  takes effect from the next round that starts after it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.formats.weights.rounds import Division, division_cap

__all__ = [
    "SeasonWindow",
    "join_refusal",
    "prompt_change_refusal",
    "prompt_in_force",
    "season_window",
]


@dataclass(frozen=True, slots=True)
class SeasonWindow:
    """A season's start (a Monday 00:00 UTC) and its end (start + 28 days)."""

    start: datetime
    end: datetime

    def running(self, moment: datetime) -> bool:
        """Return whether the season runs at ``moment`` (start inclusive, end exclusive)."""
        return self.start <= moment < self.end


def season_window(start: datetime, preset: WeightsPreset, *, strict: bool = True) -> SeasonWindow:
    """Return the season starting at ``start`` (W-SEA-1).

    Parameters
    ----------
    start
        The season's start; with ``strict`` it must be a Monday 00:00 UTC.
    preset
        The season length.
    strict
        Replays over history may start on another day (``False``).

    Raises
    ------
    ValueError
        If ``strict`` and ``start`` is not a Monday 00:00 UTC.
    """
    midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
    if strict and (start.weekday() != 0 or start != midnight or start.utcoffset() != timedelta(0)):
        raise ValueError(f"a season starts on a Monday 00:00 UTC, not {start.isoformat()}")
    return SeasonWindow(start, start + timedelta(days=preset.season_days))


def join_refusal(
    owner: str,
    division: Division,
    moment: datetime,
    season: SeasonWindow | None,
    owners: Collection[str],
    division_size: int,
    preset: WeightsPreset,
) -> str | None:
    """Return why ``owner`` may not create an agent now, or ``None`` if it may.

    Parameters
    ----------
    owners
        Owners who already have (or had) an agent this season (W-REC-1).
    division_size
        Agents already in ``division`` (W-DIV-1, W-DIV-2 caps).
    """
    if season is None or not season.running(moment):
        return "no season is running: no new agents can join (W-SEA-2)"
    if owner in owners:
        return f"owner {owner} already has an agent this season (W-REC-1)"
    if division_size >= division_cap(division, preset):
        return f"the {division.value} division is full (W-DIV-1, W-DIV-2)"
    return None


def prompt_change_refusal(
    changes: Sequence[datetime], moment: datetime, preset: WeightsPreset
) -> str | None:
    """Return why a prompt change at ``moment`` is refused, or ``None`` (W-REC-2)."""
    today = sum(c.date() == moment.date() for c in changes)
    if today >= preset.prompt_changes_per_day:
        return f"the prompt was already changed {today} times today (W-REC-2)"
    return None


def prompt_in_force(history: Sequence[tuple[datetime, str]], round_start: datetime) -> str | None:
    """Return the prompt a round starting at ``round_start`` uses (W-REC-2).

    ``history`` holds ``(changed_at, prompt)`` pairs; a change made at or after
    the round's start waits for the next round.
    """
    current: str | None = None
    for changed_at, prompt in sorted(history, key=lambda p: p[0]):
        if changed_at < round_start:
            current = prompt
    return current
