"""Reference prices and their validity (W-PX-1, W-PX-2, W-PX-4).

A price source (Chainlink over JSON-RPC live, frozen bars in replay) hands the
format one ``FeedReading`` per symbol: the feed's raw answer and decimals, its
update time, the token's paused flag and multiplier, each possibly unreadable
(``None``). ``check_price`` applies W-PX-4 in the SPEC's order (could not be
read; zero or negative; below 0.01 USD; no update time; more than 5 minutes in
the future; decimals other than on record; too large to compute exactly) and
returns either the reference price of one token in micro-dollars (W-PX-2:
share price x the token's multiplier, rounded down, ours) or the first reason
it is not valid. The 0.01 USD check comes before the decimals are compared, so
it values the answer exactly at the decimals *on record* (the league's reading
of the feed); a feed that changes its decimals is then reported as such.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.money import MICRO, Usd

__all__ = ["FeedReading", "PriceCheck", "PriceInvalid", "check_price", "reference_price"]


class PriceInvalid(enum.StrEnum):
    """Why a price read is not valid (W-PX-4), in the order they are checked."""

    UNREADABLE = "unreadable"
    """The feed could not be read."""
    NOT_POSITIVE = "not_positive"
    """The answer is zero or negative."""
    BELOW_MINIMUM = "below_minimum"
    """The price of one token is below 0.01 USD (at the decimals on record)."""
    NO_UPDATE_TIME = "no_update_time"
    """The feed gives no update time."""
    FUTURE_UPDATE_TIME = "future_update_time"
    """The update time is more than five minutes ahead of the read."""
    DECIMALS_CHANGED = "decimals_changed"
    """The feed reports other decimals than the ones on record."""
    TOO_LARGE = "too_large"
    """The answer is too large to compute with exactly."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedReading:
    """One symbol's raw read from its price source.

    Attributes
    ----------
    symbol
        The league symbol.
    answer
        The feed's raw integer answer; ``None`` when it could not be read.
    decimals
        The decimals the feed reports now; ``None`` when unreadable.
    updated_at
        The feed's update time; ``None`` when it has none (a zero timestamp).
    paused
        The token's paused flag; ``None`` when that report could not be read.
    multiplier
        The token's multiplier as ``(numerator, denominator)`` (W-PX-2); ``None``
        when it could not be read.
    error
        What went wrong, in words, where something did.
    """

    symbol: str
    answer: int | None
    decimals: int | None
    updated_at: datetime | None
    paused: bool | None = False
    multiplier: tuple[int, int] | None = (1, 1)
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PriceCheck:
    """The verdict on one read: a price, or the first reason it is not valid."""

    price: Usd | None
    invalid: PriceInvalid | None

    @property
    def valid(self) -> bool:
        """Return whether the read gave a valid price."""
        return self.invalid is None


def reference_price(answer: int, decimals: int, multiplier: tuple[int, int]) -> Usd:
    """Return the price of one token in micro-dollars (W-PX-2), rounded down.

    Examples
    --------
    >>> reference_price(23_456_000_000, 8, (1, 1))
    234560000
    """
    num, den = multiplier
    return Usd((answer * num * MICRO) // (10**decimals * den))


def check_price(
    reading: FeedReading,
    decimals_on_record: int,
    read_at: datetime,
    preset: WeightsPreset,
) -> PriceCheck:
    """Return the reference price of ``reading`` or the first W-PX-4 reason it is invalid.

    Parameters
    ----------
    reading
        The raw read.
    decimals_on_record
        The decimals the feed registry holds for this feed.
    read_at
        When the read was made (the round's start).
    preset
        The thresholds.
    """

    def bad(reason: PriceInvalid) -> PriceCheck:
        return PriceCheck(None, reason)

    if reading.answer is None or reading.decimals is None or reading.multiplier is None:
        return bad(PriceInvalid.UNREADABLE)
    if reading.multiplier[0] <= 0 or reading.multiplier[1] <= 0:
        return bad(PriceInvalid.UNREADABLE)
    if reading.answer <= 0:
        return bad(PriceInvalid.NOT_POSITIVE)
    num, den = reading.multiplier
    one_token = Fraction(reading.answer * num * MICRO, den) / Fraction(10) ** decimals_on_record
    if one_token < preset.min_price_micros:
        return bad(PriceInvalid.BELOW_MINIMUM)
    if reading.updated_at is None:
        return bad(PriceInvalid.NO_UPDATE_TIME)
    if reading.updated_at - read_at > preset.future_tolerance:
        return bad(PriceInvalid.FUTURE_UPDATE_TIME)
    if reading.decimals != decimals_on_record:
        return bad(PriceInvalid.DECIMALS_CHANGED)
    if reading.answer > preset.max_exact_answer:
        return bad(PriceInvalid.TOO_LARGE)
    return PriceCheck(reference_price(reading.answer, reading.decimals, reading.multiplier), None)
