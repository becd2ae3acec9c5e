"""A market snapshot: every price read once, at one instant (SPEC C-2, W-RND-2).

A round takes one snapshot at its start; every participant decides from, and
fills at, those prices. The snapshot is frozen and carries where its prices
came from and whether they are synthetic, so a display can always say so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

from tradeleague.market.dataset import Dataset
from tradeleague.money import Usd

__all__ = ["Snapshot", "take_snapshot"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Prices read once, at ``time``.

    Attributes
    ----------
    time
        The instant the prices were read (UTC).
    prices
        Symbol -> price in micro-dollars (read-only).
    source
        Where the prices came from (a dataset label or a feed's name).
    synthetic
        Whether the prices are generated rather than real.
    observed_at
        Symbol -> when that price became known (may be well before ``time``
        for a symbol whose market is closed).
    missing
        Symbols asked for that had no observable price at ``time``.
    """

    time: datetime
    prices: Mapping[str, Usd]
    source: str
    synthetic: bool
    observed_at: Mapping[str, datetime] = field(default_factory=dict)
    missing: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.time.utcoffset() is None:
            raise ValueError("a snapshot's time must be an aware UTC datetime (C-11)")
        for symbol, price in self.prices.items():
            if type(price) is not int or price <= 0:
                raise ValueError(f"{symbol}: a snapshot price is a positive micro-dollar int")
        object.__setattr__(self, "prices", MappingProxyType(dict(self.prices)))
        object.__setattr__(self, "observed_at", MappingProxyType(dict(self.observed_at)))

    @property
    def symbols(self) -> tuple[str, ...]:
        """Return the priced symbols, sorted."""
        return tuple(sorted(self.prices))


def take_snapshot(
    dataset: Dataset, moment: datetime, symbols: Iterable[str] | None = None
) -> Snapshot:
    """Read every symbol's latest observable price at ``moment``, once.

    Parameters
    ----------
    dataset
        The bars to read from.
    moment
        The instant of the read; nothing that became known after it is used.
    symbols
        The symbols to read (default: all of the dataset's).
    """
    prices: dict[str, Usd] = {}
    seen: dict[str, datetime] = {}
    missing: list[str] = []
    for symbol in dataset.symbols if symbols is None else symbols:
        obs = dataset.latest_observation(symbol, moment)
        if obs is None:
            missing.append(symbol)
        else:
            prices[symbol] = obs.price
            seen[symbol] = obs.at
    return Snapshot(
        time=moment,
        prices=prices,
        source=dataset.label,
        synthetic=dataset.synthetic,
        observed_at=seen,
        missing=tuple(missing),
    )
