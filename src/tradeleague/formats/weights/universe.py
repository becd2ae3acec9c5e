"""The universe builder (W-UNI-1, W-UNI-2).

Of the tokens with a published price feed, take the ``size`` with the largest
value outstanding (token supply x reference price). A function of the feed
registry and the supplies it is given, so it runs on chain or on a fixture.
Ties go to the lower symbol (ours), so the rule never depends on input order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tradeleague.money import MICRO

__all__ = ["Listing", "build_universe"]


@dataclass(frozen=True, slots=True)
class Listing:
    """One token's size: its supply (micro-tokens) and reference price (micro-dollars)."""

    symbol: str
    supply: int
    price: int

    @property
    def value_outstanding(self) -> int:
        """Return supply x price in micro-dollars (rounded down)."""
        return (self.supply * self.price) // MICRO


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
    eligible = [listings[s] for s in feeds if s in listings and listings[s].price > 0]
    eligible.sort(key=lambda x: (-x.value_outstanding, x.symbol))
    return tuple(sorted(x.symbol for x in eligible[:size]))
