"""Seasons: a fixed length, a reset to the starting balance, an early end (SPEC D-SEA-1, C-8).

A season runs ``season_length`` (30 days); then every account resets to the
starting balance (50,000). It ends early, after the round that caused it, if
any account falls below the floor (200: twenty stakes), because a model that
cannot cover the stake would silently drop out. Past seasons keep their
records: the log is append-only and a new season only adds events.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from datetime import datetime

from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.money import Usd

__all__ = ["SeasonEnd", "season_end", "season_id"]


class SeasonEnd(enum.StrEnum):
    """Why a season ended."""

    LENGTH = "length"
    """The season ran its full length."""
    FLOOR = "floor"
    """An account fell below the floor."""


def season_id(number: int) -> str:
    """Return the id of season ``number`` (``S1``, ``S2``...)."""
    if number < 1:
        raise ValueError("seasons are numbered from 1")
    return f"S{number}"


def season_end(
    preset: DirectionPreset,
    started_at: datetime,
    now: datetime,
    balances: Mapping[str, Usd],
) -> SeasonEnd | None:
    """Return why the season has ended at ``now``, or ``None`` if it goes on (D-SEA-1).

    The length is checked first: a season past its length ends by length even
    if an account is also below the floor.
    """
    if now >= started_at + preset.season_length:
        return SeasonEnd.LENGTH
    if any(balance < preset.season_floor for balance in balances.values()):
        return SeasonEnd.FLOOR
    return None
