"""One clock abstraction for live and replay (SPEC C-11).

The pure core never reads a clock; the shell passes it times taken from a
``Clock``. ``WallClock`` reads the system time; ``ReplayClock`` is moved by the
replay driver over frozen history and never sleeps for real.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "ReplayClock", "WallClock", "ensure_utc"]


def ensure_utc(moment: datetime) -> datetime:
    """Return ``moment`` in UTC; a naive datetime is rejected, never guessed."""
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment.isoformat()} : every time must carry UTC")
    return moment.astimezone(UTC)


@runtime_checkable
class Clock(Protocol):
    """What the shell needs of time."""

    def now(self) -> datetime:
        """Return the current time, timezone-aware, in UTC."""
        ...

    def monotonic(self) -> float:
        """Return seconds from an arbitrary origin that never go backwards."""
        ...

    async def sleep_until(self, moment: datetime) -> None:
        """Wait until ``moment`` (or return at once if it has passed)."""
        ...


class WallClock:
    """The system clock."""

    def now(self) -> datetime:
        """Return the system time in UTC."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """Return ``time.monotonic()``."""
        return time.monotonic()

    async def sleep_until(self, moment: datetime) -> None:
        """Sleep for real until ``moment``."""
        delay = (ensure_utc(moment) - self.now()).total_seconds()
        if delay > 0:
            await asyncio.sleep(delay)


class ReplayClock:
    """A simulated clock over frozen history: time moves only when told to."""

    def __init__(self, start: datetime) -> None:
        self._now = ensure_utc(start)
        self._origin = self._now

    def now(self) -> datetime:
        """Return the simulated time."""
        return self._now

    def monotonic(self) -> float:
        """Return simulated seconds since the clock's start."""
        return (self._now - self._origin).total_seconds()

    def set(self, moment: datetime) -> None:
        """Move to ``moment``; moving backwards is an error."""
        moment = ensure_utc(moment)
        if moment < self._now:
            raise ValueError(f"replay clock cannot go back from {self._now} to {moment}")
        self._now = moment

    def advance(self, delta: timedelta) -> None:
        """Move forward by ``delta``."""
        self.set(self._now + delta)

    async def sleep_until(self, moment: datetime) -> None:
        """Jump to ``moment`` without waiting (yields once to the event loop)."""
        if ensure_utc(moment) > self._now:
            self.set(moment)
        await asyncio.sleep(0)
