"""The universe builder (W-UNI-1, W-UNI-2).

Of the tokens with a published price feed, take the ``size`` with the largest
value outstanding (token supply x reference price). A function of the feed
registry and the supplies it is given, so it runs on chain or on a fixture.
Ties go to the lower symbol (ours), so the rule never depends on input order.

``choose_universe`` is the whole rule at a season's start, from raw reads: it
judges every feed on record with the price checks of a round (W-PX-4), leaves
out a feed that has stopped publishing (ours: its last update is more than the
preset's ``stale_after`` older than the freshest feed of the same read, so a
weekend or a holiday, when every feed is silent, empties nothing), a token with
no supply read, then ranks the rest by value outstanding with ``rank_listings``
and keeps what ``build_universe`` keeps. Each symbol gets a row with every
input and, when it is left out, why.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.formats.weights.price_checks import FeedReading, PriceInvalid, check_price

__all__ = [
    "LeftOut",
    "Listing",
    "SupplyReading",
    "Universe",
    "UniverseRow",
    "build_universe",
    "choose_universe",
    "rank_listings",
]

_MICRO_DECIMALS = 6


@dataclass(frozen=True, slots=True)
class Listing:
    """One token's size: its supply and reference price (micro-dollars).

    ``supply`` is in units of ``10**-supply_decimals`` tokens (micro-tokens by
    default; a token's raw ``totalSupply`` with its ERC-20 ``decimals``).
    """

    symbol: str
    supply: int
    price: int
    supply_decimals: int = _MICRO_DECIMALS

    @property
    def value_outstanding(self) -> int:
        """Return supply x price in micro-dollars (rounded down)."""
        scale: int = 10**self.supply_decimals
        return (self.supply * self.price) // scale


def rank_listings(listings: Mapping[str, Listing]) -> list[Listing]:
    """Return the listings with a positive price, largest value outstanding first.

    Ties go to the lower symbol, so the order never depends on the input's.
    """
    eligible = [x for x in listings.values() if x.price > 0]
    eligible.sort(key=lambda x: (-x.value_outstanding, x.symbol))
    return eligible


def build_universe(
    feeds: Mapping[str, object], listings: Mapping[str, Listing], size: int = 20
) -> tuple[str, ...]:
    """Return the league's symbols, sorted, by the rule of W-UNI-1.

    Parameters
    ----------
    feeds
        The feed registry: symbols with a published price feed (values unused).
    listings
        Supply and price per symbol; symbols without a feed are ignored.
    size
        How many symbols the league holds.
    """
    ranked = rank_listings({s: listings[s] for s in feeds if s in listings})
    return tuple(sorted(x.symbol for x in ranked[:size]))


class LeftOut(enum.StrEnum):
    """Why a symbol on record is not in the season's universe."""

    PRICE_INVALID = "price_invalid"
    """Its feed gave no valid price (the round's price checks; the code is beside it)."""
    STALE = "stale"
    """Its feed last published long before the freshest feed of the same read."""
    NO_TOKEN = "no_token"  # noqa: S105 - a reason code, not a secret
    """The registry names no token for it, so it has no supply to size it by."""
    SUPPLY_UNREADABLE = "supply_unreadable"
    """Its token's supply (or the supply's decimals) could not be read."""
    OUTSIDE_TOP = "outside_top"
    """Ranked, but with less value outstanding than the symbols chosen."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SupplyReading:
    """One token's raw ERC-20 read: ``totalSupply()`` and ``decimals()``.

    Attributes
    ----------
    symbol
        The league symbol.
    supply
        The raw ``totalSupply()``; ``None`` when it could not be read (or no token).
    decimals
        The token's ``decimals()``; ``None`` when it could not be read.
    error
        What went wrong, in words, where something did.
    """

    symbol: str
    supply: int | None
    decimals: int | None
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UniverseRow:
    """One symbol on record, as the universe judged it: every input and the outcome."""

    symbol: str
    reading: FeedReading
    price: int | None
    invalid: PriceInvalid | None
    supply: SupplyReading
    value: int | None
    rank: int | None
    chosen: bool
    left_out: LeftOut | None


@dataclass(frozen=True, slots=True)
class Universe:
    """A season's universe: its symbols (sorted) and a row per symbol on record."""

    symbols: tuple[str, ...]
    rows: tuple[UniverseRow, ...]
    stale_before: datetime | None
    """A feed last updated before this was left out as stale (``None``: no valid feed)."""


def choose_universe(
    readings: Mapping[str, FeedReading],
    supplies: Mapping[str, SupplyReading],
    decimals_on_record: Mapping[str, int],
    read_at: datetime,
    preset: WeightsPreset,
) -> Universe:
    """Return the universe of a season starting at ``read_at`` (see the module docstring).

    Parameters
    ----------
    readings
        Every feed on record, read once (a symbol missing here is unreadable).
    supplies
        Every token's supply read (a symbol missing here has no supply).
    decimals_on_record
        The feed registry: symbol -> its feed's decimals on record.
    read_at
        When the reads were made.
    preset
        The price checks' thresholds, ``stale_after`` and ``universe_size``.
    """
    symbols = sorted(decimals_on_record)
    checks = {}
    for s in symbols:
        reading = readings.get(s) or FeedReading(
            symbol=s, answer=None, decimals=None, updated_at=None, error="not read"
        )
        checks[s] = (reading, check_price(reading, decimals_on_record[s], read_at, preset))
    fresh = [r.updated_at for r, c in checks.values() if c.valid and r.updated_at is not None]
    stale_before = max(fresh) - preset.stale_after if fresh else None
    listings: dict[str, Listing] = {}
    left: dict[str, LeftOut] = {}
    for s, (reading, check) in checks.items():
        supply = supplies.get(s)
        if not check.valid or check.price is None:
            left[s] = LeftOut.PRICE_INVALID
        elif (
            stale_before is not None
            and reading.updated_at is not None
            and (reading.updated_at < stale_before)
        ):
            left[s] = LeftOut.STALE
        elif supply is None:
            left[s] = LeftOut.NO_TOKEN
        elif supply.supply is None or supply.decimals is None or supply.supply < 0:
            left[s] = LeftOut.SUPPLY_UNREADABLE
        else:
            listings[s] = Listing(s, supply.supply, int(check.price), supply.decimals)
    ranked = rank_listings(listings)
    rank = {x.symbol: i for i, x in enumerate(ranked, start=1)}
    chosen = build_universe(listings, listings, preset.universe_size)
    rows = []
    for s, (reading, check) in checks.items():
        listing = listings.get(s)
        out = left.get(s)
        if out is None and s not in chosen:
            out = LeftOut.OUTSIDE_TOP
        rows.append(
            UniverseRow(
                symbol=s,
                reading=reading,
                price=None if check.price is None else int(check.price),
                invalid=check.invalid,
                supply=supplies.get(s) or SupplyReading(symbol=s, supply=None, decimals=None),
                value=None if listing is None else listing.value_outstanding,
                rank=rank.get(s),
                chosen=s in chosen,
                left_out=out,
            )
        )
    return Universe(chosen, tuple(rows), stale_before)
