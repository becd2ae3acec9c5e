"""Trading-day calendars behind one small interface (SPEC T-UNI-3, C-11).

Two calendars exist: ``"XNYS"`` (the New York Stock Exchange, regular sessions
with their early closes, from ``exchange_calendars``) and ``"24/7"`` (crypto:
every UTC day is a session from 00:00Z to 24:00Z). Both are tables of sessions
held as integer arrays, so every question is a binary search. They are pure:
they answer about the times they are given and never read a clock. The table
covers 1990-01-01 .. 2040-12-31; a question outside it is an error, not a guess.

``exchange_calendars`` (with pandas) takes about a second to import and
build the NYSE calendar, more than a short replay's whole run; so its sessions
ship with the package as a table (``xnys_sessions.npz``, three int64 columns),
read in milliseconds. ``nyse_from_exchange_calendars`` builds the same table
from the library, ``tests/market/test_calendars.py`` checks that the shipped
table equals it, and ``write_nyse_table(NYSE_TABLE_PATH)`` writes it anew
after an ``exchange_calendars`` upgrade. ``get_calendar`` keeps one instance
per name.
"""

from __future__ import annotations

import functools
import warnings
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray

from tradeleague.errors import ConfigError

__all__ = [
    "CALENDAR_NAMES",
    "CONTINUOUS",
    "DAY_S",
    "NYSE",
    "TradingCalendar",
    "get_calendar",
]

NYSE: Final = "XNYS"
"""The name of the New York Stock Exchange calendar."""
CONTINUOUS: Final = "24/7"
"""The name of the round-the-clock crypto calendar."""
DAY_S: Final = 86_400
"""Seconds in a day."""

_ALIASES: Final = {"XNYS": NYSE, "NYSE": NYSE, "24/7": CONTINUOUS, "CRYPTO": CONTINUOUS}
CALENDAR_NAMES: Final = (NYSE, CONTINUOUS)
"""The calendars ``get_calendar`` knows (``NYSE`` and ``crypto`` are aliases)."""

_FIRST: Final = date(1990, 1, 1)
_LAST: Final = date(2040, 12, 31)
_EPOCH: Final = date(1970, 1, 1)


def _day_number(day: date) -> int:
    return (day - _EPOCH).days


def _to_date(day_number: int) -> date:
    return _EPOCH + timedelta(days=int(day_number))


def _seconds(moment: datetime) -> int:
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: every time must carry UTC")
    return int(moment.timestamp())


def _moment(seconds: int) -> datetime:
    return datetime.fromtimestamp(int(seconds), UTC)


class TradingCalendar:
    """A table of trading sessions: a session date, its open and its close.

    Build one with ``get_calendar``. Dates are session labels; opens and closes
    are aware UTC datetimes. The vectorised views (``days``, ``opens``,
    ``closes``) hold days since 1970-01-01 and seconds since the Unix epoch.
    """

    __slots__ = ("_closes", "_days", "_opens", "continuous", "name")

    def __init__(
        self,
        name: str,
        days: NDArray[np.int64],
        opens: NDArray[np.int64],
        closes: NDArray[np.int64],
        *,
        continuous: bool,
    ) -> None:
        for arr in (days, opens, closes):
            arr.flags.writeable = False
        self.name = name
        """The calendar's name (``"XNYS"`` or ``"24/7"``)."""
        self.continuous = continuous
        """Whether every UTC day is a full 24-hour session (crypto)."""
        self._days = days
        self._opens = opens
        self._closes = closes

    def __repr__(self) -> str:
        return f"TradingCalendar({self.name!r}, {len(self._days)} sessions)"

    @property
    def days(self) -> NDArray[np.int64]:
        """Return the session dates as days since 1970-01-01 (read-only, sorted)."""
        return self._days

    @property
    def opens(self) -> NDArray[np.int64]:
        """Return each session's open in seconds since the Unix epoch."""
        return self._opens

    @property
    def closes(self) -> NDArray[np.int64]:
        """Return each session's close in seconds since the Unix epoch."""
        return self._closes

    def _check_range(self, day: date) -> None:
        if not _FIRST <= day <= _LAST:
            raise ValueError(f"{day} is outside the {self.name} calendar ({_FIRST} .. {_LAST})")

    def _index(self, day: date) -> int:
        self._check_range(day)
        n = _day_number(day)
        i = int(np.searchsorted(self._days, n))
        if i < len(self._days) and int(self._days[i]) == n:
            return i
        return -1

    def is_trading_day(self, day: date) -> bool:
        """Return whether ``day`` is a session (T-UNI-3: stocks trade only on these).

        Parameters
        ----------
        day
            A calendar date (a session label).
        """
        return self._index(day) >= 0

    def sessions(self, start: date, end: date) -> tuple[date, ...]:
        """Return the sessions from ``start`` to ``end``, both inclusive, oldest first."""
        self._check_range(start)
        self._check_range(end)
        lo = int(np.searchsorted(self._days, _day_number(start), side="left"))
        hi = int(np.searchsorted(self._days, _day_number(end), side="right"))
        return tuple(_to_date(d) for d in self._days[lo:hi])

    def previous_sessions(self, day: date, count: int) -> tuple[date, ...]:
        """Return up to ``count`` sessions strictly before ``day``, oldest first.

        Fewer are returned only where the calendar's table begins.
        """
        if count < 0:
            raise ValueError("count must be >= 0")
        self._check_range(day)
        hi = int(np.searchsorted(self._days, _day_number(day), side="left"))
        return tuple(_to_date(d) for d in self._days[max(0, hi - count) : hi])

    def session_open(self, day: date) -> datetime:
        """Return the open of session ``day`` (UTC); a non-session is a ``ValueError``."""
        return _moment(int(self._opens[self._require(day)]))

    def session_close(self, day: date) -> datetime:
        """Return the close of session ``day`` (UTC), early closes included."""
        return _moment(int(self._closes[self._require(day)]))

    def _require(self, day: date) -> int:
        i = self._index(day)
        if i < 0:
            raise ValueError(f"{day} is not a {self.name} session")
        return i

    def session_at(self, moment: datetime) -> date | None:
        """Return the session in progress at ``moment`` (open <= t < close), if any."""
        t = _seconds(moment)
        i = int(np.searchsorted(self._opens, t, side="right")) - 1
        if i >= 0 and t < int(self._closes[i]):
            return _to_date(int(self._days[i]))
        return None

    def is_open(self, moment: datetime) -> bool:
        """Return whether a session is in progress at ``moment``."""
        return self.session_at(moment) is not None

    def last_closed_session(self, moment: datetime) -> date | None:
        """Return the latest session whose close is at or before ``moment``."""
        t = _seconds(moment)
        i = int(np.searchsorted(self._closes, t, side="right")) - 1
        return _to_date(int(self._days[i])) if i >= 0 else None

    def locate(self, day_numbers: NDArray[np.int64]) -> NDArray[np.int64]:
        """Return the table index of each day number, or -1 where it is not a session."""
        idx = np.searchsorted(self._days, day_numbers).astype(np.int64)
        clipped = np.minimum(idx, len(self._days) - 1)
        found = self._days[clipped] == day_numbers
        return np.where(found, clipped, -1)

    def containing(self, seconds: NDArray[np.int64]) -> NDArray[np.int64]:
        """Return the index of the session with open <= t <= close, or -1.

        The close itself counts as inside, so that a closing print stamped at the
        close (as Yahoo serves on early-close days) belongs to its session.
        """
        idx = np.searchsorted(self._opens, seconds, side="right").astype(np.int64) - 1
        clipped = np.maximum(idx, 0)
        inside = (idx >= 0) & (seconds <= self._closes[clipped])
        return np.where(inside, clipped, -1)


_NYSE_TABLE: Final = "xnys_sessions.npz"
NYSE_TABLE_PATH: Final = Path(__file__).with_name(_NYSE_TABLE)
"""Where the shipped NYSE table lives in a source checkout (for `write_nyse_table`)."""


def nyse_from_exchange_calendars() -> TradingCalendar:
    """Build the NYSE calendar from ``exchange_calendars`` (slow: about a second)."""
    import exchange_calendars

    with warnings.catch_warnings():
        # exchange_calendars 4.x trips pandas 3 deprecation warnings while it builds;
        # they are about its internals, not about the sessions read here.
        warnings.simplefilter("ignore", DeprecationWarning)
        cal = exchange_calendars.get_calendar(NYSE, start=_FIRST.isoformat(), end=_LAST.isoformat())
    schedule = cal.schedule
    days = (schedule.index.to_numpy(dtype="datetime64[D]").astype(np.int64)).copy()
    opens = schedule["open"].to_numpy(dtype="datetime64[s]").astype(np.int64).copy()
    closes = schedule["close"].to_numpy(dtype="datetime64[s]").astype(np.int64).copy()
    return TradingCalendar(NYSE, days, opens, closes, continuous=False)


def write_nyse_table(path: Path) -> None:
    """Write the NYSE sessions from ``exchange_calendars`` to ``path`` (the shipped table)."""
    cal = nyse_from_exchange_calendars()
    np.savez_compressed(path, days=cal.days, opens=cal.opens, closes=cal.closes)


def _nyse() -> TradingCalendar:
    with resources.files("tradeleague.market").joinpath(_NYSE_TABLE).open("rb") as handle:
        table = np.load(handle, allow_pickle=False)
        days, opens, closes = (table[k].astype(np.int64) for k in ("days", "opens", "closes"))
    return TradingCalendar(NYSE, days, opens, closes, continuous=False)


def _continuous() -> TradingCalendar:
    days = np.arange(_day_number(_FIRST), _day_number(_LAST) + 1, dtype=np.int64)
    return TradingCalendar(CONTINUOUS, days, days * DAY_S, (days + 1) * DAY_S, continuous=True)


@functools.cache
def _build(name: str) -> TradingCalendar:
    return _nyse() if name == NYSE else _continuous()


def get_calendar(name: str) -> TradingCalendar:
    """Return the calendar called ``name`` (one shared instance per name).

    Parameters
    ----------
    name
        ``"XNYS"`` (alias ``"NYSE"``) or ``"24/7"`` (alias ``"crypto"``).

    Raises
    ------
    ConfigError
        For an unknown name; the message lists the known ones.
    """
    canonical = _ALIASES.get(name.upper())
    if canonical is None:
        known = ", ".join(CALENDAR_NAMES)
        raise ConfigError(f"unknown calendar {name!r}; known calendars: {known}")
    return _build(canonical)
