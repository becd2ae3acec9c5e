"""Halts, holds and the market's status at a round's start (W-MKT-1, W-MKT-2, W-HOLD-1..3).

``assess_market`` is the one pure function that turns the round's reads into
what the round may do: each symbol's price for the round, which symbols are
halted and why, which are newly put on hold, and whether the market is open
(and, if not, every reason why, for the site to show).

- A symbol is halted (W-MKT-1) while its feed last published more than 25
  hours before the read, its token reports the feed paused or that report
  could not be read, or its price is on hold. A halted symbol is valued at the
  last accepted price and not traded. A symbol halted before any price was
  ever accepted is valued at its (valid) read price (ours).
- A move of more than 30% from the symbol's price in the latest round puts it
  on hold, unless it was halted in that round (W-HOLD-1). A hold lasts until
  an operator releases it (W-HOLD-2): the caller passes the holds in force.
- The market is open (W-MKT-2) only if the node's latest block is at most 5
  minutes old, every read is valid (W-PX-4), at most two symbols are halted
  and some feed published in the last 3 hours. When holds leave more than two
  halted, the site says "League paused" (W-HOLD-3).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime

from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.formats.weights.price_checks import FeedReading, PriceCheck, check_price
from tradeleague.money import MICRO, Usd

__all__ = [
    "LEAGUE_PAUSED",
    "ClosedReason",
    "HaltReason",
    "Hold",
    "MarketAssessment",
    "PreviousRound",
    "assess_market",
    "moved_too_far",
]

LEAGUE_PAUSED = "League paused"
"""What the site says when holds close the market (W-HOLD-3)."""


class HaltReason(enum.StrEnum):
    """Why a symbol is halted (W-MKT-1)."""

    STALE = "stale_feed"
    """Its feed last published more than 25 hours before the read."""
    PAUSED = "feed_paused"
    """Its token reports its feed paused (a corporate action)."""
    PAUSED_UNREADABLE = "paused_flag_unreadable"
    """Its token's paused report could not be read."""
    HOLD = "on_hold"
    """Its price is on hold after a sudden move (W-HOLD-1)."""


class ClosedReason(enum.StrEnum):
    """Why the market is closed (W-MKT-2, W-HOLD-3)."""

    NODE_UNREACHABLE = "node_unreachable"
    """Prices could not be read from a node."""
    NODE_STALE = "node_stale"
    """The node's latest block is more than five minutes old."""
    INVALID_PRICE = "invalid_price"
    """Some feed returned no valid price (W-PX-4)."""
    TOO_MANY_HALTED = "too_many_halted"
    """More than two symbols are halted."""
    LEAGUE_PAUSED = "league_paused"
    """Holds leave more than two symbols halted (W-HOLD-3)."""
    NO_RECENT_UPDATE = "no_recent_update"
    """No feed has published in the last three hours (weekends, holidays)."""


@dataclass(frozen=True, slots=True)
class Hold:
    """A new hold: the symbol's price in the latest round and the price that moved."""

    symbol: str
    before: Usd
    after: Usd


@dataclass(frozen=True, slots=True, kw_only=True)
class PreviousRound:
    """What the latest round left: its prices and its halted symbols."""

    prices: Mapping[str, Usd]
    halted: AbstractSet[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class MarketAssessment:
    """Everything the round's start decides from its reads.

    Attributes
    ----------
    checks
        The W-PX-4 verdict of every read.
    prices
        The price every symbol is valued (and, if not halted, traded) at.
    halted
        Halted symbol -> its reasons, in the order of ``HaltReason``.
    new_holds
        Holds this read puts in force (W-HOLD-1).
    closed
        Why the market is closed; empty when it is open.
    invalid
        Symbol -> reason for every invalid read.
    """

    checks: Mapping[str, PriceCheck]
    prices: Mapping[str, Usd]
    halted: Mapping[str, tuple[HaltReason, ...]]
    new_holds: tuple[Hold, ...]
    closed: tuple[ClosedReason, ...]
    invalid: Mapping[str, str] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        """Return whether the market is open (W-MKT-2)."""
        return not self.closed

    @property
    def status_text(self) -> str:
        """Return what the site says: open, closed with reasons, or "League paused"."""
        if self.open:
            return "Market open"
        if ClosedReason.LEAGUE_PAUSED in self.closed:
            return LEAGUE_PAUSED
        return "Market closed: " + ", ".join(r.value for r in self.closed)

    @property
    def halted_symbols(self) -> frozenset[str]:
        """Return the halted symbols."""
        return frozenset(self.halted)


def moved_too_far(before: int, after: int, preset: WeightsPreset) -> bool:
    """Return whether ``after`` moved more than the hold threshold from ``before`` (W-HOLD-1).

    Examples
    --------
    >>> moved_too_far(100, 130, WeightsPreset()), moved_too_far(100, 131, WeightsPreset())
    (False, True)
    """
    return abs(after - before) * MICRO > before * preset.hold_move_ppm


def assess_market(
    readings: Mapping[str, FeedReading],
    decimals_on_record: Mapping[str, int],
    read_at: datetime,
    node_block_time: datetime | None,
    preset: WeightsPreset,
    *,
    previous: PreviousRound | None = None,
    holds: AbstractSet[str] = frozenset(),
    last_accepted: Mapping[str, Usd] | None = None,
) -> MarketAssessment:
    """Judge every symbol, then the market (see the module docstring).

    Parameters
    ----------
    readings
        One read per league symbol.
    decimals_on_record
        The feed registry's decimals per symbol.
    read_at
        When the reads were made.
    node_block_time
        The time of the node's latest block; ``None`` if no node could be read.
    preset
        The thresholds.
    previous
        The latest round's prices and halted symbols (``None`` before the first).
    holds
        Symbols on hold and not yet released (W-HOLD-2).
    last_accepted
        The last accepted price of each symbol, for valuing halted ones.
    """
    accepted = dict(last_accepted or {})
    checks = {
        s: check_price(r, decimals_on_record.get(s, -1), read_at, preset)
        for s, r in sorted(readings.items())
    }
    invalid = {s: str(c.invalid) for s, c in checks.items() if c.invalid is not None}
    new_holds: list[Hold] = []
    halted: dict[str, tuple[HaltReason, ...]] = {}
    prices: dict[str, Usd] = {}
    for symbol, reading in sorted(readings.items()):
        check = checks[symbol]
        reasons: list[HaltReason] = []
        if reading.updated_at is not None and read_at - reading.updated_at > preset.stale_after:
            reasons.append(HaltReason.STALE)
        if reading.paused is None:
            reasons.append(HaltReason.PAUSED_UNREADABLE)
        elif reading.paused:
            reasons.append(HaltReason.PAUSED)
        on_hold = symbol in holds
        if not on_hold and check.price is not None and previous is not None:
            before = previous.prices.get(symbol)
            if (
                before is not None
                and symbol not in previous.halted
                and moved_too_far(before, check.price, preset)
            ):
                new_holds.append(Hold(symbol, before, check.price))
                on_hold = True
        if on_hold:
            reasons.append(HaltReason.HOLD)
        if reasons:
            halted[symbol] = tuple(reasons)
            kept = accepted.get(symbol, check.price)
            if kept is not None:
                prices[symbol] = kept
        elif check.price is not None:
            prices[symbol] = check.price
    closed: list[ClosedReason] = []
    if node_block_time is None:
        closed.append(ClosedReason.NODE_UNREACHABLE)
    elif read_at - node_block_time > preset.node_max_age:
        closed.append(ClosedReason.NODE_STALE)
    if invalid:
        closed.append(ClosedReason.INVALID_PRICE)
    if len(halted) > preset.max_halted:
        on_holds = any(HaltReason.HOLD in r for r in halted.values())
        closed.append(ClosedReason.LEAGUE_PAUSED if on_holds else ClosedReason.TOO_MANY_HALTED)
    times = [r.updated_at for r in readings.values() if r.updated_at is not None]
    if not times or all(read_at - t > preset.recent_update for t in times):
        closed.append(ClosedReason.NO_RECENT_UPDATE)
    return MarketAssessment(
        checks=checks,
        prices=prices,
        halted=halted,
        new_holds=tuple(new_holds),
        closed=tuple(closed),
        invalid=invalid,
    )
