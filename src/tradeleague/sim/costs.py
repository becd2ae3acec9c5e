"""Cost models: tiny interfaces for fees and slippage (W-EXE-5, S-FIL-2).

Two kinds of slippage exist among the formats. The weights league charges it
as a *cost on value* (0.1% of the fill's value, like a fee), so it is a
`SlippageModel`. The scenario benchmark fills at an *adjusted price* (the next
bar's open plus some basis points), so it is a `PriceSlippage`. Every cost
rounds up and every received price rounds down (W-EXE-7).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from tradeleague.money import MICRO, Rounding, Usd, div_round
from tradeleague.sim.fill import Side

__all__ = [
    "BPS",
    "SCENARIO_INDEX_FUNDS",
    "BpsPriceSlippage",
    "FeeModel",
    "NoPriceSlippage",
    "PpmFee",
    "PpmSlippage",
    "PriceSlippage",
    "SlippageModel",
    "ZeroFee",
    "ZeroSlippage",
    "scenario_price_slippage",
]

BPS: Final = 10_000
"""Basis points per whole (1 bp = 0.01%)."""

SCENARIO_INDEX_FUNDS: Final = frozenset({"SPY", "QQQ", "IWM", "DIA"})
"""The symbols S-FIL-2 slips by 3 bps."""


class FeeModel(Protocol):
    """The fee one fill pays."""

    def fee(self, symbol: str, side: Side, value: Usd) -> Usd:
        """Return the fee, in micro-dollars (>= 0), for a fill of gross ``value``."""
        ...


class SlippageModel(Protocol):
    """Slippage charged as a cost on a fill's value (the weights league)."""

    def slippage(self, symbol: str, side: Side, value: Usd) -> Usd:
        """Return the slippage cost, in micro-dollars (>= 0), for a fill of ``value``."""
        ...


class PriceSlippage(Protocol):
    """Slippage as a worse fill price (the scenario benchmark)."""

    def fill_price(self, symbol: str, side: Side, price: Usd) -> Usd:
        """Return the price a market order on ``side`` fills at, given the quoted ``price``."""
        ...


def _ppm_up(value: int, rate_ppm: int) -> Usd:
    return Usd(div_round(value * rate_ppm, MICRO, Rounding.UP))


@dataclass(frozen=True, slots=True)
class PpmFee:
    """A fee of ``rate_ppm`` parts per million of value, rounded up (0.1% = 1,000)."""

    rate_ppm: int

    def __post_init__(self) -> None:
        if self.rate_ppm < 0:
            raise ValueError("a fee rate must be >= 0")

    def fee(self, symbol: str, side: Side, value: Usd) -> Usd:
        """Return ``value x rate`` rounded up."""
        return _ppm_up(value, self.rate_ppm)


@dataclass(frozen=True, slots=True)
class ZeroFee:
    """No fee."""

    def fee(self, symbol: str, side: Side, value: Usd) -> Usd:
        """Return zero."""
        return Usd(0)


@dataclass(frozen=True, slots=True)
class PpmSlippage:
    """Slippage of ``rate_ppm`` parts per million of value, rounded up (W-EXE-5)."""

    rate_ppm: int

    def __post_init__(self) -> None:
        if self.rate_ppm < 0:
            raise ValueError("a slippage rate must be >= 0")

    def slippage(self, symbol: str, side: Side, value: Usd) -> Usd:
        """Return ``value x rate`` rounded up."""
        return _ppm_up(value, self.rate_ppm)


@dataclass(frozen=True, slots=True)
class ZeroSlippage:
    """No slippage cost on value."""

    def slippage(self, symbol: str, side: Side, value: Usd) -> Usd:
        """Return zero."""
        return Usd(0)


@dataclass(frozen=True, slots=True)
class NoPriceSlippage:
    """Fill at the quoted price."""

    def fill_price(self, symbol: str, side: Side, price: Usd) -> Usd:
        """Return ``price`` unchanged."""
        return price


@dataclass(frozen=True, slots=True)
class BpsPriceSlippage:
    """Move the fill price against the trader by a per-symbol number of basis points.

    A paying side (buy, cover) fills at ``price x (1 + bps)`` rounded up; a
    receiving side (sell, short) at ``price x (1 - bps)`` rounded down, never
    below one micro-dollar.

    Attributes
    ----------
    default_bps
        Basis points for a symbol not in ``per_symbol``.
    per_symbol
        Basis points by symbol.
    """

    default_bps: int
    per_symbol: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.default_bps < 0 or any(b < 0 for b in self.per_symbol.values()):
            raise ValueError("slippage in bps must be >= 0")
        if self.default_bps >= BPS or any(b >= BPS for b in self.per_symbol.values()):
            raise ValueError("slippage must be below 10,000 bps (100%)")

    def bps_for(self, symbol: str) -> int:
        """Return the basis points applied to ``symbol``."""
        return self.per_symbol.get(symbol, self.default_bps)

    def fill_price(self, symbol: str, side: Side, price: Usd) -> Usd:
        """Return the slipped fill price."""
        bps = self.per_symbol.get(symbol, self.default_bps)
        if side is Side.BUY or side is Side.COVER:
            return Usd(div_round(price * (BPS + bps), BPS, Rounding.UP))
        return Usd(max(1, div_round(price * (BPS - bps), BPS, Rounding.DOWN)))


def scenario_price_slippage(
    high_variance: Iterable[str] = (),
    *,
    index_bps: int = 3,
    high_variance_bps: int = 20,
    default_bps: int = 8,
    overrides: Mapping[str, int] | None = None,
) -> BpsPriceSlippage:
    """Return the S-FIL-2 preset: 3 bps SPY/QQQ/IWM/DIA, 20 bps high-variance, 8 otherwise.

    Parameters
    ----------
    high_variance
        The scenario's high-variance names (configurable; the seed does not list them).
    index_bps, high_variance_bps, default_bps
        The three tiers, in basis points.
    overrides
        Per-symbol basis points that a scenario sets, applied last.
    """
    table = dict.fromkeys(SCENARIO_INDEX_FUNDS, index_bps)
    table.update(dict.fromkeys(high_variance, high_variance_bps))
    if overrides:
        table.update(overrides)
    return BpsPriceSlippage(default_bps, table)
