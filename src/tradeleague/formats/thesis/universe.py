"""The fixed universe and its symbol names (SPEC T-UNI-1, T-UNI-2).

The universe ships as ``universe.json`` beside this module: 10 crypto pairs and
50 stocks, with BTC and SPY as benchmarks that are shown and never held.
Provider symbols (``ETHUSDT``, ``BRK-B``) are normalised for prompts and
reports (``ETH``, ``BRK.B``) and mapped back before execution.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from typing import Final

__all__ = ["AssetClass", "Universe", "load_universe", "normalise"]

_QUOTE: Final = "USDT"


class AssetClass(StrEnum):
    """Where an asset trades."""

    CRYPTO = "crypto"
    STOCK = "stock"


def normalise(provider_symbol: str) -> str:
    """Return a provider symbol's shown name: ``ETHUSDT`` is ``ETH``, ``BRK-B`` is ``BRK.B``."""
    if provider_symbol.endswith(_QUOTE) and len(provider_symbol) > len(_QUOTE):
        return provider_symbol[: -len(_QUOTE)]
    return provider_symbol.replace("-", ".")


@dataclass(frozen=True, slots=True)
class Universe:
    """The tradeable symbols and the benchmarks, by provider symbol."""

    crypto: tuple[str, ...]
    stocks: tuple[str, ...]
    crypto_benchmark: str
    stock_benchmark: str

    def __post_init__(self) -> None:
        names = [normalise(s) for s in self.all_symbols]
        if len(set(names)) != len(names):
            raise ValueError("two provider symbols share one normalised name")

    @property
    def tradeable(self) -> tuple[str, ...]:
        """Return every tradeable provider symbol, crypto first."""
        return self.crypto + self.stocks

    @property
    def benchmarks(self) -> tuple[str, str]:
        """Return the two benchmark provider symbols (never held)."""
        return (self.crypto_benchmark, self.stock_benchmark)

    @property
    def all_symbols(self) -> tuple[str, ...]:
        """Return tradeable symbols and benchmarks."""
        return self.tradeable + self.benchmarks

    def asset_class(self, provider_symbol: str) -> AssetClass:
        """Return the class of a provider symbol."""
        if provider_symbol in self.crypto or provider_symbol == self.crypto_benchmark:
            return AssetClass.CRYPTO
        return AssetClass.STOCK

    def provider_symbol(self, shown: str) -> str | None:
        """Map a shown (or provider) name back to its provider symbol; ``None`` if unknown."""
        key = shown.strip().upper()
        for symbol in self.all_symbols:
            if key in (symbol, normalise(symbol)):
                return symbol
        return None


def load_universe() -> Universe:
    """Return the universe shipped with the package."""
    raw = json.loads(
        resources.files("tradeleague.formats.thesis").joinpath("universe.json").read_text("utf-8")
    )
    return Universe(
        crypto=tuple(raw["crypto"]),
        stocks=tuple(raw["stocks"]),
        crypto_benchmark=raw["benchmarks"]["crypto"],
        stock_benchmark=raw["benchmarks"]["stocks"],
    )
