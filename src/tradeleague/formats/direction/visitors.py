"""Visitors' own calls: who may call, which round, until when (SPEC D-PUB-1, D-PUB-2, D-RND-4).

A visitor of the site may call the open round up or down under a name of
their choosing; the call is recorded beside the models' answers, placed and
scored the same way and ranked apart (D-PUB-2). The rules, pure:

- **The name** is user text, so it is bounded before anything else is done
  with it (at most ``MAX_RAW_NAME_CHARS`` characters arrive), then
  normalised: lone surrogates replaced (``untrusted.clean_text``), NFKC (so a
  full-width ``ａｎｎ`` is ``ann``), invisible format characters removed as C-10
  removes them, every run of white space one space, trimmed. What is left must
  be 1 to ``MAX_NAME_CHARS`` printable characters (letters, marks, digits,
  punctuation, symbols, spaces). The normalised name is the visitor: one call
  per name per round. It is shown escaped wherever it appears (C-10, in
  ``publish``).
- **The round** is the one open on the round grid at the call's moment; the
  arena must be playing it (its record shows this round open, or the round
  before it, when this one's start is not written yet), and it must not have
  finished.
- **The time**: the models' late rule (D-RND-4). A call with less than the
  late cutoff left before expiry is refused, and the arena, which judges the
  recorded call again by its moment, would record it ``late``.
- **Hidden until expiry** (D-PUB-1): a call is stored in the round's visitors
  stream, which no public payload reads; the arena's record of it is public
  only once the round has finished, as the models' calls are.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from tradeleague.events import utc_iso
from tradeleague.formats.direction.ledger import Ledger, RoundView
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import RoundTimes, round_times
from tradeleague.untrusted import clean_text

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_RAW_NAME_CHARS",
    "VISITOR_PREFIX",
    "CallRefused",
    "Refusal",
    "VisitorCall",
    "call_round",
    "calls_close_at",
    "check_in_time",
    "check_playing",
    "visitor_name",
]

VISITOR_PREFIX: Final = "visitor:"
"""The prefix of a visitor's account name (``visitor:NAME``)."""

MAX_NAME_CHARS: Final = 40
"""The longest visitor name, in characters, after normalisation."""

MAX_RAW_NAME_CHARS: Final = 200
"""The longest name text read at all (a longer one is refused before normalising)."""

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_SHOWN: Final = frozenset("LMNPS")
"""The Unicode major categories a name may hold (besides the space)."""


class Refusal(enum.StrEnum):
    """Why a visitor's call was not taken (each an error code of the site)."""

    INVALID_NAME = "invalid_name"
    """The name is empty, too long or holds characters that cannot be shown."""
    INVALID_DIRECTION = "invalid_direction"
    """The direction is not exactly ``up`` or ``down``."""
    NO_OPEN_ROUND = "no_open_round"
    """No round of the arena takes calls now (none playing, or it has finished)."""
    LATE = "late"
    """Less than the late cutoff was left before the round's expiry (D-RND-4)."""
    ALREADY_CALLED = "already_called"
    """This name has already called this round."""
    NAME_TAKEN = "name_taken"
    """Another visitor first called under this name (their visitor cookie owns it)."""


class CallRefused(ValueError):
    """A visitor's call that was not taken: ``code`` says why, the message in words."""

    def __init__(self, code: Refusal, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def visitor_name(text: str) -> str:
    """Return a visitor's name bounded and normalised (see the module notes).

    Raises
    ------
    CallRefused
        ``invalid_name``: empty, longer than ``MAX_NAME_CHARS`` once
        normalised, or holding a character that cannot be shown.

    Examples
    --------
    >>> visitor_name("  Ａｎｎ " + chr(0x200B) + "  Lee ")
    'Ann Lee'
    """
    if len(text) > MAX_RAW_NAME_CHARS:
        raise CallRefused(
            Refusal.INVALID_NAME, f"A visitor's name is at most {MAX_NAME_CHARS} characters."
        )
    text = unicodedata.normalize("NFKC", clean_text(text))
    visible = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    name = " ".join(visible.split())
    if not name:
        raise CallRefused(Refusal.INVALID_NAME, "Give a name to call under.")
    if len(name) > MAX_NAME_CHARS:
        raise CallRefused(
            Refusal.INVALID_NAME, f"A visitor's name is at most {MAX_NAME_CHARS} characters."
        )
    if any(ch != " " and unicodedata.category(ch)[0] not in _SHOWN for ch in name):
        raise CallRefused(
            Refusal.INVALID_NAME,
            "A visitor's name holds letters, digits, punctuation, symbols and spaces only.",
        )
    return name


def call_round(at: datetime, preset: DirectionPreset) -> RoundTimes:
    """Return the round open on the grid at ``at`` (its open <= ``at`` < its expiry)."""
    step = preset.round_length
    return round_times(at - (at - _EPOCH) % step, preset)


def calls_close_at(times: RoundTimes, preset: DirectionPreset) -> datetime:
    """Return the first moment a call on the round is late (D-RND-4)."""
    return times.expiry - preset.late_cutoff


def _seconds(delta: timedelta) -> str:
    return f"{delta.total_seconds():g}"


def check_in_time(times: RoundTimes, at: datetime, preset: DirectionPreset) -> None:
    """Refuse a call at ``at`` outside the round's calling time.

    Raises
    ------
    CallRefused
        ``late`` with less than the late cutoff left (D-RND-4, the models'
        rule exactly), ``no_open_round`` before the round opens.
    """
    if at < times.open_at:
        raise CallRefused(Refusal.NO_OPEN_ROUND, f"Round {times.round_id} has not opened yet.")
    if times.expiry - at < preset.late_cutoff:
        closed = calls_close_at(times, preset)
        raise CallRefused(
            Refusal.LATE,
            f"Calls on round {times.round_id} closed at {closed:%H:%M:%S} UTC, "
            f"{_seconds(preset.late_cutoff)} s before it expires; call the next round.",
        )


def _last_round(ledger: Ledger) -> RoundView | None:
    for season in reversed(ledger.seasons.values()):
        if season.rounds:
            return next(reversed(season.rounds.values()))
    return None


def _find(ledger: Ledger, round_id: str) -> RoundView | None:
    for season in reversed(ledger.seasons.values()):
        found = season.rounds.get(round_id)
        if found is not None:
            return found
    return None


def check_playing(ledger: Ledger, times: RoundTimes, preset: DirectionPreset) -> None:
    """Refuse a call unless the arena's record shows it playing the round of ``times``.

    The round is open in the record, or not written yet while the round just
    before it is the last one the arena started (a live arena writes a
    round's start a moment after its open; a replay writes a round whole).

    Raises
    ------
    CallRefused
        ``no_open_round``: the round has finished, or the arena has played
        past it, or it is not playing at all.
    """
    rid = times.round_id
    view = _find(ledger, rid)
    if view is not None:
        if not view.is_open:
            raise CallRefused(
                Refusal.NO_OPEN_ROUND, f"Round {rid} has closed; call the next round."
            )
        return
    last = _last_round(ledger)
    if last is None:
        raise CallRefused(
            Refusal.NO_OPEN_ROUND,
            "The arena has not played a round yet; calls open with its first.",
        )
    last_open = datetime.fromisoformat(str(last.started["open_at"]).replace("Z", "+00:00"))
    if last_open > times.open_at:
        raise CallRefused(Refusal.NO_OPEN_ROUND, f"Round {rid} has closed; call the next round.")
    if last_open < times.open_at - preset.round_length:
        raise CallRefused(
            Refusal.NO_OPEN_ROUND,
            "The arena is not playing now; calls open again with its next round.",
        )


@dataclass(frozen=True, slots=True)
class VisitorCall:
    """A visitor's call as the site records it: round, normalised name, direction, moment."""

    round: str
    visitor: str
    direction: str
    at: datetime

    @property
    def account(self) -> str:
        """Return the visitor's account name (``visitor:NAME``)."""
        return f"{VISITOR_PREFIX}{self.visitor}"

    def to_payload(self) -> dict[str, str]:
        """Return the ``VisitorCalled`` payload."""
        return {
            "round": self.round,
            "visitor": self.visitor,
            "direction": self.direction,
            "at": utc_iso(self.at),
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, object]) -> VisitorCall | None:
        """Return the call a ``VisitorCalled`` payload records, or ``None`` if it is malformed.

        The stream is written by the site, not the arena: the arena reads it as
        outside input, so a payload with a bad name, direction or time is no call.
        """
        rid, name, direction, at = (
            v if isinstance(v, str) else None
            for v in (payload.get(k) for k in ("round", "visitor", "direction", "at"))
        )
        if rid is None or name is None or at is None or direction not in ("up", "down"):
            return None
        try:
            if visitor_name(name) != name:
                return None
            moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
        except (CallRefused, ValueError):
            return None
        if moment.tzinfo is None:
            return None
        return cls(rid, name, str(direction), moment.astimezone(UTC))
