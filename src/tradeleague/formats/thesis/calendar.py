"""A thesis season's instants: its daily cycles and its close (T-SEA-1, T-MON-1; pure).

A season covers the days ``[start, end)``: one cycle a day at the preset's
hour (16:00 UTC), and its close at the monitor's last check before ``end``,
when the monitor's run after the last cycle is complete. The replay and the
host's schedule both read these.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from tradeleague.errors import ConfigError
from tradeleague.formats.thesis.preset import ThesisPreset

__all__ = ["close_instant", "cycle_times", "season_bounds"]


def season_bounds(start: date, end: date) -> tuple[int, int]:
    """Return the season's first and end instants (epoch seconds; the end is exclusive)."""
    return (
        int(datetime.combine(start, time(0), UTC).timestamp()),
        int(datetime.combine(end, time(0), UTC).timestamp()),
    )


def cycle_times(start: date, end: date, preset: ThesisPreset) -> list[int]:
    """Return every cycle instant (epoch seconds) in ``[start, end)``.

    Raises
    ------
    ConfigError
        If the range is empty or longer than a season (T-SEA-1).
    """
    days = (end - start).days
    if days < 1:
        raise ConfigError(f"the end {end} must come after the start {start}")
    if days > preset.season_days:
        raise ConfigError(f"a season lasts at most {preset.season_days} days, not {days}")
    return [
        int(datetime.combine(start + timedelta(days=i), time(preset.cycle_hour), UTC).timestamp())
        for i in range(days)
    ]


def close_instant(end: date, preset: ThesisPreset) -> int:
    """Return the season's close: the monitor's last check before ``end`` (epoch seconds)."""
    step = preset.monitor_minutes * 60
    end_s = int(datetime.combine(end, time(0), UTC).timestamp())
    return (end_s - 1) // step * step
