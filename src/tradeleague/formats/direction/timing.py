"""The round clock: continuous rounds, one deadline, one expiry (SPEC D-RND-1..4).

Rounds sit on a fixed grid of ``round_length`` from the Unix epoch (every
five minutes, around the clock). A round opens at a grid instant and expires
one round length later; the call goes out at the *ask* instant (the open, or
later when the round's data came late) and the response window runs from the
ask. Every trade of the round expires at the round's expiry: a trade placed
at ``t`` gets the duration ``expiry - t`` (D-RND-2).

An answer's moment is ``ask + latency``. In live play the latency is measured;
in replay it is the recorded or simulated latency, so ``timeout`` and ``late``
fall exactly as they would have live.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tradeleague.formats.direction.preset import DirectionPreset

__all__ = [
    "AnswerTiming",
    "RoundTimes",
    "answer_timing",
    "round_id",
    "round_opens",
    "round_times",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class AnswerTiming(enum.Enum):
    """Where an answer fell on the round clock."""

    ON_TIME = "on_time"
    TIMEOUT = "timeout"
    """No answer inside the response window (D-RND-3)."""
    LATE = "late"
    """Answered with less than the late cutoff left before expiry (D-RND-4)."""


@dataclass(frozen=True, slots=True)
class RoundTimes:
    """One round's instants.

    Attributes
    ----------
    open_at
        The grid instant the round opens and its candles end.
    expiry
        The instant every trade of the round expires (``open_at + round_length``).
    """

    open_at: datetime
    expiry: datetime

    @property
    def round_id(self) -> str:
        """Return the round's id, its open time: ``20250901T1205Z`` (see ``round_id``)."""
        return round_id(self.open_at)


def round_id(open_at: datetime) -> str:
    """Return a round's id from its open instant (UTC, one id per open).

    On the minute grid (every round of the seed) the id is to the minute,
    ``20250901T1205Z``; a drill round opening off the grid adds its seconds,
    ``20250901T120505Z``, so two rounds in one minute never share an id.
    Fractions of a second never occur: a round length is whole seconds. Ids
    of one kind sort by time; a drill id does not sort against a grid id.
    """
    moment = open_at.astimezone(UTC)
    if moment.second or moment.microsecond:
        return f"{moment:%Y%m%dT%H%M%SZ}"
    return f"{moment:%Y%m%dT%H%MZ}"


def round_times(open_at: datetime, preset: DirectionPreset) -> RoundTimes:
    """Return the times of the round opening at ``open_at`` (a grid instant).

    Raises
    ------
    ValueError
        If ``open_at`` is naive or off the round grid.
    """
    if open_at.tzinfo is None:
        raise ValueError("round times must be aware UTC")
    if (open_at - _EPOCH) % preset.round_length:
        raise ValueError(f"{open_at.isoformat()} is not on the {preset.round_length} grid")
    return RoundTimes(open_at.astimezone(UTC), open_at.astimezone(UTC) + preset.round_length)


def round_opens(start: datetime, end: datetime, preset: DirectionPreset) -> list[datetime]:
    """Return every round open in ``[start, end)``, continuously (D-RND-1).

    ``start`` is rounded up to the grid: the first round is the first whole one.
    """
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("round times must be aware UTC")
    step = preset.round_length
    offset = (start - _EPOCH) % step
    first = start if not offset else start + (step - offset)
    count = max(0, -((first - end) // step))
    return [(first + i * step).astimezone(UTC) for i in range(count)]


def answer_timing(
    times: RoundTimes,
    ask_at: datetime,
    latency_ms: int | None,
    preset: DirectionPreset,
) -> AnswerTiming:
    """Classify an answer by the round clock (D-RND-3, D-RND-4).

    Parameters
    ----------
    times
        The round's instants.
    ask_at
        When the call went out (the window starts here).
    latency_ms
        How long the answer took from the ask; ``None`` when no answer came.
    preset
        The window and the late cutoff.
    """
    if latency_ms is None or latency_ms < 0:
        return AnswerTiming.TIMEOUT
    if timedelta(milliseconds=latency_ms) > preset.window:
        return AnswerTiming.TIMEOUT
    answered_at = ask_at + timedelta(milliseconds=latency_ms)
    if times.expiry - answered_at < preset.late_cutoff:
        return AnswerTiming.LATE
    return AnswerTiming.ON_TIME
