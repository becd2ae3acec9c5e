"""Trading calendars: NYSE sessions and early closes, and 24/7 crypto (SPEC T-UNI-3, C-11)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np
import pytest

from tradeleague.errors import ConfigError
from tradeleague.market import CONTINUOUS, NYSE, calendars, get_calendar


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


def test_calendar_instances_are_cached_and_aliased() -> None:
    assert get_calendar("XNYS") is get_calendar("nyse")
    assert get_calendar("24/7") is get_calendar("crypto")
    assert get_calendar("XNYS").name == NYSE
    assert get_calendar("24/7").name == CONTINUOUS


def test_unknown_calendar_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"XNYS, 24/7"):
        get_calendar("LSE")


def test_nyse_trading_days() -> None:
    """T-UNI-3: stock rows only on US trading days; crypto every day."""
    nyse, crypto = get_calendar(NYSE), get_calendar(CONTINUOUS)
    assert nyse.is_trading_day(date(2025, 7, 3))
    assert not nyse.is_trading_day(date(2025, 7, 4))  # Independence Day
    assert not nyse.is_trading_day(date(2025, 7, 5))  # Saturday
    assert not nyse.is_trading_day(date(2025, 1, 9))  # national day of mourning
    assert crypto.is_trading_day(date(2025, 7, 5))
    assert crypto.is_trading_day(date(2025, 12, 25))


def test_nyse_open_and_close_including_early_closes() -> None:
    nyse = get_calendar(NYSE)
    assert nyse.session_open(date(2025, 7, 2)) == utc(2025, 7, 2, 13, 30)
    assert nyse.session_close(date(2025, 7, 2)) == utc(2025, 7, 2, 20)
    assert nyse.session_close(date(2025, 7, 3)) == utc(2025, 7, 3, 17)  # half day, summer
    assert nyse.session_close(date(2025, 11, 28)) == utc(2025, 11, 28, 18)  # half day, winter
    assert nyse.session_open(date(2026, 1, 30)) == utc(2026, 1, 30, 14, 30)
    assert nyse.session_close(date(2026, 1, 30)) == utc(2026, 1, 30, 21)
    with pytest.raises(ValueError, match="not a XNYS session"):
        nyse.session_open(date(2025, 7, 4))


def test_sessions_and_previous_sessions() -> None:
    nyse = get_calendar(NYSE)
    assert nyse.sessions(date(2025, 7, 2), date(2025, 7, 8)) == (
        date(2025, 7, 2),
        date(2025, 7, 3),
        date(2025, 7, 7),
        date(2025, 7, 8),
    )
    assert nyse.previous_sessions(date(2025, 7, 7), 2) == (date(2025, 7, 2), date(2025, 7, 3))
    assert nyse.previous_sessions(date(2025, 7, 5), 1) == (date(2025, 7, 3),)
    assert nyse.previous_sessions(date(2025, 7, 7), 0) == ()


def test_session_at_and_last_closed() -> None:
    nyse = get_calendar(NYSE)
    assert nyse.session_at(utc(2025, 7, 3, 16, 59)) == date(2025, 7, 3)
    assert nyse.session_at(utc(2025, 7, 3, 17)) is None  # the close is not inside
    assert not nyse.is_open(utc(2025, 7, 5, 15))
    assert nyse.last_closed_session(utc(2025, 7, 3, 17)) == date(2025, 7, 3)
    assert nyse.last_closed_session(utc(2025, 7, 7, 14)) == date(2025, 7, 3)
    crypto = get_calendar(CONTINUOUS)
    assert crypto.session_at(utc(2025, 7, 5, 23, 59)) == date(2025, 7, 5)
    assert crypto.session_close(date(2025, 7, 5)) == utc(2025, 7, 6)


def test_calendar_is_pure_about_naive_times_and_range() -> None:
    """C-11: a naive time is an error; outside the table is an error, not a guess."""
    nyse = get_calendar(NYSE)
    with pytest.raises(ValueError, match="naive"):
        nyse.session_at(datetime(2025, 7, 3, 15))  # noqa: DTZ001
    with pytest.raises(ValueError, match="outside"):
        nyse.is_trading_day(date(1985, 1, 2))


def test_the_shipped_nyse_table_equals_exchange_calendars() -> None:
    """T-UNI-3: the NYSE sessions shipped with the package are exchange_calendars' own.

    After an ``exchange_calendars`` upgrade that changes a session, rewrite the table:
    ``python -c "from tradeleague.market import calendars as c;
    c.write_nyse_table(c.NYSE_TABLE_PATH)"``.
    """
    shipped = get_calendar(NYSE)
    built = calendars.nyse_from_exchange_calendars()
    assert np.array_equal(shipped.days, built.days)
    assert np.array_equal(shipped.opens, built.opens)
    assert np.array_equal(shipped.closes, built.closes)
    assert shipped.days.dtype == np.int64
