"""A scenario's fixed rules: universe, leverage cap, shorting, cash, slippage (S-SCN-1).

A `ScenarioConfig` is frozen at provisioning and travels with the scenario
version as canonical JSON, so a run pinned to a version always trades under the
same rules (S-SCN-2). Slippage is resolved to one number of basis points per
symbol at provisioning (S-FIL-2), so later changes to the defaults here never
reach an existing version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from tradeleague.clock import ensure_utc
from tradeleague.events import canonical_json, utc_iso
from tradeleague.formats.scenario.preset import SlippageTiers
from tradeleague.money import Usd, usd
from tradeleague.sim import BpsPriceSlippage, OrderRules

__all__ = [
    "DEFAULT_CASH",
    "DEFAULT_HISTORY",
    "LEVERAGE_CAPS",
    "NAME_RE",
    "ScenarioConfig",
    "default_slippage",
    "parse_slippage_overrides",
]

LEVERAGE_CAPS: Final = (1, 2, 4, 10)
"""The leverage caps a scenario may have (S-SCN-1)."""

DEFAULT_CASH: Final = usd(100_000)
"""Starting cash unless a scenario says otherwise (100,000 USD)."""

DEFAULT_HISTORY: Final = 20
"""How many recent bars per symbol the market view carries (S-API-1)."""

NAME_RE: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")
"""What a scenario name looks like: lower case, digits, ``.``, ``_``, ``-``."""

_SYMBOL_RE: Final = re.compile(r"[A-Z][A-Z0-9.\-]{0,19}")


def default_slippage(
    symbols: Iterable[str],
    overrides: Mapping[str, int] | None = None,
    tiers: SlippageTiers | None = None,
) -> dict[str, int]:
    """Return basis points of slippage for every symbol (S-FIL-2).

    ``tiers`` defaults to the seed's (`SlippageTiers`): 3 bps for
    SPY/QQQ/IWM/DIA, 20 bps for `HIGH_VARIANCE` names, 8 bps otherwise;
    ``overrides`` win.

    Raises
    ------
    ValueError
        If an override names a symbol outside ``symbols``.
    """
    return (tiers or SlippageTiers()).table(symbols, overrides)


def parse_slippage_overrides(items: Iterable[str]) -> dict[str, int]:
    """Parse ``SYM=BPS`` items (``TSLA=25``) into a mapping.

    Raises
    ------
    ValueError
        For an item that is not ``SYMBOL=whole number of bps``.
    """
    out: dict[str, int] = {}
    for item in items:
        symbol, sep, raw = item.partition("=")
        symbol = symbol.strip().upper()
        if not sep or not symbol or not raw.strip().isdigit():
            raise ValueError(f"slippage {item!r}: write SYMBOL=BPS, e.g. TSLA=25")
        out[symbol] = int(raw.strip())
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ScenarioConfig:
    """The frozen rules of one scenario version (S-SCN-1).

    Attributes
    ----------
    name
        The scenario's name (versions share it).
    symbols
        The universe, sorted.
    start, end
        The slice of history: bars stamped in ``[start, end)``.
    leverage_cap
        One of `LEVERAGE_CAPS` (S-FIL-5).
    allow_short
        Whether ``short``/``cover`` orders are allowed (S-FIL-4).
    cash
        Starting cash in micro-dollars.
    slippage_bps
        Basis points of price slippage per symbol, one entry per symbol (S-FIL-2).
    market
        Where the bars came from (a dataset label); shown with every result.
    synthetic
        Whether the bars are synthetic rather than history (always labelled).
    periods_per_year
        Steps in a year, for annualising Sharpe and Sortino (S-SCO-1).
    history
        Recent bars per symbol in the market view (S-API-1).
    """

    name: str
    symbols: tuple[str, ...]
    start: datetime
    end: datetime
    leverage_cap: int = 1
    allow_short: bool = False
    cash: Usd = DEFAULT_CASH
    slippage_bps: Mapping[str, int] = field(default_factory=dict)
    market: str = ""
    synthetic: bool = False
    periods_per_year: float = 252.0
    history: int = DEFAULT_HISTORY

    def __post_init__(self) -> None:
        if NAME_RE.fullmatch(self.name) is None:
            raise ValueError(f"scenario name {self.name!r}: use a-z, 0-9, '.', '_', '-'")
        if not self.symbols or len(set(self.symbols)) != len(self.symbols):
            raise ValueError("a scenario needs one or more distinct symbols")
        bad = [s for s in self.symbols if _SYMBOL_RE.fullmatch(s) is None]
        if bad:
            raise ValueError(f"symbols must be upper-case tickers, not {bad}")
        object.__setattr__(self, "symbols", tuple(sorted(self.symbols)))
        object.__setattr__(self, "start", ensure_utc(self.start))
        object.__setattr__(self, "end", ensure_utc(self.end))
        if self.end <= self.start:
            raise ValueError("a scenario's end must be after its start")
        if self.leverage_cap not in LEVERAGE_CAPS:
            raise ValueError(f"leverage cap {self.leverage_cap}: one of {LEVERAGE_CAPS}")
        if self.cash <= 0:
            raise ValueError("starting cash must be positive")
        if not self.periods_per_year > 0:
            raise ValueError("periods_per_year must be positive")
        if not 1 <= self.history <= 500:
            raise ValueError("history must be 1 to 500 bars")
        table = dict(self.slippage_bps) or default_slippage(self.symbols)
        if set(table) != set(self.symbols):
            raise ValueError("slippage_bps must name every symbol of the universe, and only them")
        BpsPriceSlippage(0, table)  # range check
        object.__setattr__(self, "slippage_bps", {s: table[s] for s in self.symbols})

    def price_slippage(self) -> BpsPriceSlippage:
        """Return the price slippage model of this scenario (S-FIL-2)."""
        return BpsPriceSlippage(0, dict(self.slippage_bps))

    def order_rules(self) -> OrderRules:
        """Return the engine's rules: cap, shorting, margin cash, slippage (S-FIL-2..5).

        Cash may go below zero (a leveraged long borrows it); the leverage cap
        is what limits exposure.
        """
        return OrderRules(
            allow_short=self.allow_short,
            allow_negative_cash=True,
            leverage_cap=self.leverage_cap,
            price_slippage=self.price_slippage(),
        )

    def to_json(self) -> str:
        """Return the canonical JSON text of the config (what a version stores)."""
        return canonical_json(
            {
                "name": self.name,
                "symbols": list(self.symbols),
                "start": utc_iso(self.start),
                "end": utc_iso(self.end),
                "leverage_cap": self.leverage_cap,
                "allow_short": self.allow_short,
                "cash": str(int(self.cash)),
                "slippage_bps": dict(self.slippage_bps),
                "market": self.market,
                "synthetic": self.synthetic,
                "periods_per_year": repr(self.periods_per_year),
                "history": self.history,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ScenarioConfig:
        """Rebuild a config from `to_json` output."""
        raw = json.loads(text)
        return cls(
            name=raw["name"],
            symbols=tuple(raw["symbols"]),
            start=datetime.fromisoformat(raw["start"]),
            end=datetime.fromisoformat(raw["end"]),
            leverage_cap=int(raw["leverage_cap"]),
            allow_short=bool(raw["allow_short"]),
            cash=Usd(int(raw["cash"])),
            slippage_bps={str(k): int(v) for k, v in raw["slippage_bps"].items()},
            market=str(raw["market"]),
            synthetic=bool(raw["synthetic"]),
            periods_per_year=float(raw["periods_per_year"]),
            history=int(raw["history"]),
        )
