"""A league's seasons, one after another: which season holds a slot, and its driver (issue 12).

A league file names one season (``season`` over ``[start, end)``) or, with
``roll``, seasons of 28 days from ``start`` one after another, each named
``<season>-<its first day>``, until ``end`` if given (the last one cut
there). A season's id and days follow from the slot alone, so a restarted
host (state from events only) goes on with the same seasons.

``Seasons`` holds the drivers of the seasons played so far, each made when
its first slot comes (its own agents, state and stream); the weights league
and the thesis league are each one (W-SEA-1, T-SEA-1).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Generic, Protocol, TypeVar

from tradeleague.errors import ConfigError
from tradeleague.events import Event

__all__ = [
    "SEASON_DAYS",
    "SeasonDriver",
    "Seasons",
    "current_season",
    "season_window",
    "season_windows",
]

SEASON_DAYS = 28
"""A rolling season's length in days (W-SEA-1, T-SEA-1)."""


def season_window(
    name: str, start: date, end: date | None, roll: bool, day: date
) -> tuple[str, date, date] | None:
    """Return the id, first day and end (exclusive) of the season holding ``day``.

    ``None`` when no season of the league holds it (before ``start``, or from ``end``).
    """
    if day < start or (end is not None and day >= end):
        return None
    if not roll:
        return None if end is None else (name, start, end)
    index = (day - start).days // SEASON_DAYS
    day0 = start + timedelta(days=index * SEASON_DAYS)
    day1 = day0 + timedelta(days=SEASON_DAYS)
    return f"{name}-{day0.isoformat()}", day0, day1 if end is None else min(day1, end)


def current_season(
    name: str, start: date, end: date | None, roll: bool, now: datetime
) -> tuple[str, date, date] | None:
    """Return the league file's season holding ``now`` (before the league starts: its first).

    A league file of one season names it whenever ``now`` is.
    """
    if not roll and end is not None:
        return name, start, end
    return season_window(name, start, end, roll, max(now.date(), start))


def season_windows(
    name: str, start: date, end: date | None, roll: bool, span: tuple[datetime, datetime]
) -> Iterator[tuple[str, date, date]]:
    """Yield, in order, every season whose days meet ``[span[0], span[1])``."""
    first = datetime.combine(start, time(0), tzinfo=UTC)
    day = max(span[0], first).date()
    while datetime.combine(day, time(0), tzinfo=UTC) < span[1]:
        window = season_window(name, start, end, roll, day)
        if window is None:
            return
        yield window
        day = window[2]


class SeasonDriver(Protocol):
    """What `Seasons` needs of one season's driver."""

    def played(self, slot: datetime) -> bool:
        """Return whether ``slot`` is recorded."""
        ...

    async def play(self, slot: datetime) -> list[Event]:
        """Play ``slot`` and return its events."""
        ...

    async def aclose(self) -> None:
        """Release the driver's connections."""
        ...


D = TypeVar("D", bound=SeasonDriver)


class Seasons(Generic[D]):
    """A format's seasons; a subclass makes a season's driver (``_make``) and names its slots.

    ``season`` and ``stream`` name the season last used (the host logs them);
    ``since``, the league's first instant, is where its missed slots start.
    """

    fmt: str

    def __init__(self, name: str, start: date, end: date | None, roll: bool) -> None:
        self.name, self.start, self.end, self.roll = name, start, end, roll
        self.seasons: dict[str, D] = {}
        self.first = datetime.combine(start, time(0), tzinfo=UTC)
        self.since: datetime | None = self.first
        self.season = self.stream = name

    def _make(self, season: str, day0: date, day1: date) -> D:
        raise NotImplementedError

    def _stream(self, season: str) -> str:
        raise NotImplementedError

    def window(self, slot: datetime) -> tuple[str, date, date] | None:
        """Return the id, first day and end of the season holding ``slot``, if any."""
        return season_window(self.name, self.start, self.end, self.roll, slot.date())

    def windows(self, start: datetime, end: datetime) -> Iterator[tuple[str, date, date]]:
        """Yield every season whose days meet ``[start, end)``."""
        return season_windows(self.name, self.start, self.end, self.roll, (start, end))

    def driver(self, slot: datetime) -> D:
        """Return the season of ``slot``, opened (or taken up from its events) on first use.

        Raises
        ------
        ConfigError
            If ``slot`` is in no season.
        """
        window = self.window(slot)
        if window is None:
            raise ConfigError(f"no {self.fmt} season holds {slot.isoformat()}")
        season, day0, day1 = window
        if season not in self.seasons:
            self.seasons[season] = self._make(season, day0, day1)
        self.season, self.stream = season, self._stream(season)
        return self.seasons[season]

    def season_of(self, slot: datetime) -> str:
        """Return the id of the season that holds ``slot``."""
        window = self.window(slot)
        return window[0] if window is not None else self.name

    def played(self, slot: datetime) -> bool:
        """Return whether ``slot`` is recorded in its season."""
        return self.driver(slot).played(slot)

    async def play(self, slot: datetime) -> list[Event]:
        """Play ``slot`` in its season."""
        return await self.driver(slot).play(slot)

    async def aclose(self) -> None:
        """Close every season's driver."""
        for driver in self.seasons.values():
            await driver.aclose()
