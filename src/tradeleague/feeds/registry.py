"""The feed registry: which Chainlink feed and which token price each symbol (W-PX, W-UNI-2).

A registry file is TOML or JSON (by its suffix; at most 1 MB and 1,000 feeds)
holding, per league symbol, the address of its Chainlink aggregator, the
address of its Stock Token, and the number of decimals on record for the feed
(W-PX-4: a feed that reports other decimals is not valid). The operator
provides it; a hosted weights league reads it at each season's start to choose
the season's universe (W-UNI-1: every feed's price, and each token's ERC-20
``totalSupply()`` and ``decimals()``), and the season's rounds read the feeds
of the symbols chosen, as recorded then. In TOML (``examples/universe/feeds.toml``,
whose addresses are the local JSON-RPC peer's, ``tradeleague.testing.jsonrpc_peer``,
not those of any public chain)::

    chain_id = 46630             # optional: the node must answer this eth_chainId
    multiplier_decimals = 18     # optional (default 18): the scale of multiplier()

    [feeds.AAPL]
    aggregator = "0xa900000000000000000000000000000000000001"
    token = "0x7000000000000000000000000000000000000001"
    decimals = 8

    [feeds.QQQ]                  # no token: never in a universe (no supply)
    aggregator = "0xa900000000000000000000000000000000000017"
    decimals = 8

and in JSON the same keys: ``{"chain_id": 46630, "feeds": {"AAPL": {...}}}``.
``token`` may be left out for a feed with no token: its price is then the
feed's price (multiplier 1) and it is never reported paused; with no supply to
size it by, it is never in a season's universe.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from eth_typing import ChecksumAddress
from eth_utils.address import to_checksum_address

from tradeleague import untrusted
from tradeleague.errors import ConfigError

__all__ = ["FeedEntry", "FeedRegistry", "load_registry", "parse_registry"]

_MAX_BYTES: Final = 1_000_000
"""A registry file larger than this is refused before it is parsed."""
_MAX_FEEDS: Final = 1_000
"""A registry with more feeds than this is refused."""
_ADDRESS: Final = re.compile(r"^0x[0-9a-fA-F]{40}$")
_SYMBOL: Final = re.compile(r"^[A-Z0-9][A-Z0-9.\-]{0,15}$")


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedEntry:
    """One symbol's feed on record.

    Attributes
    ----------
    symbol
        The league symbol.
    aggregator
        The Chainlink aggregator's checksummed address.
    token
        The Stock Token's checksummed address, or ``None`` for none.
    decimals
        The feed's decimals on record (W-PX-4).
    """

    symbol: str
    aggregator: ChecksumAddress
    token: ChecksumAddress | None
    decimals: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedRegistry:
    """Every feed on record, the chain they live on and the multiplier's scale."""

    feeds: Mapping[str, FeedEntry]
    chain_id: int | None = None
    multiplier_decimals: int = 18
    name: str = "registry"

    @property
    def decimals(self) -> dict[str, int]:
        """Return the decimals on record per symbol."""
        return {s: f.decimals for s, f in sorted(self.feeds.items())}


def _address(value: object, where: str) -> ChecksumAddress:
    if not isinstance(value, str) or not _ADDRESS.match(value):
        raise ConfigError(f"{where} must be an address like 0x followed by 40 hex digits")
    return to_checksum_address(value)


def _int(value: object, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{where} must be a whole number from {low} to {high}")
    return value


def parse_registry(data: Mapping[str, Any], *, name: str = "registry") -> FeedRegistry:
    """Return the registry held by ``data`` (a parsed file; see the module docstring).

    Raises
    ------
    ConfigError
        Naming the first field that is missing or wrong.
    """
    unknown = sorted(set(data) - {"chain_id", "multiplier_decimals", "feeds"})
    if unknown:
        raise ConfigError(f"{name}: unknown keys {unknown}")
    chain_id = data.get("chain_id")
    if chain_id is not None:
        chain_id = _int(chain_id, f"{name}: chain_id", 1, 2**63)
    scale = _int(data.get("multiplier_decimals", 18), f"{name}: multiplier_decimals", 0, 36)
    feeds = data.get("feeds")
    if not isinstance(feeds, Mapping) or not feeds:
        raise ConfigError(f"{name}: 'feeds' must map each symbol to its feed")
    if len(feeds) > _MAX_FEEDS:
        raise ConfigError(f"{name}: more than {_MAX_FEEDS} feeds")
    entries: dict[str, FeedEntry] = {}
    for symbol, raw in feeds.items():
        where = f"{name}: feeds.{symbol}"
        if not isinstance(symbol, str) or not _SYMBOL.match(symbol):
            raise ConfigError(f"{where}: a symbol is upper-case letters and digits")
        if not isinstance(raw, Mapping):
            raise ConfigError(f"{where} must be a table of aggregator, token, decimals")
        extra = sorted(set(raw) - {"aggregator", "token", "decimals"})
        if extra:
            raise ConfigError(f"{where}: unknown keys {extra}")
        if "aggregator" not in raw or "decimals" not in raw:
            raise ConfigError(f"{where} needs 'aggregator' and 'decimals'")
        token = raw.get("token")
        entries[symbol] = FeedEntry(
            symbol=symbol,
            aggregator=_address(raw["aggregator"], f"{where}.aggregator"),
            token=None if token is None else _address(token, f"{where}.token"),
            decimals=_int(raw["decimals"], f"{where}.decimals", 0, 36),
        )
    return FeedRegistry(
        feeds=dict(sorted(entries.items())),
        chain_id=chain_id,
        multiplier_decimals=scale,
        name=name,
    )


def load_registry(path: Path) -> FeedRegistry:
    """Read a registry file: ``.toml`` or ``.json``.

    Raises
    ------
    ConfigError
        If the file cannot be read or parsed, or a field is wrong.
    """
    try:
        with path.open("rb") as file:
            raw = file.read(_MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read the feed registry {path}: {exc.strerror}") from None
    if len(raw) > _MAX_BYTES:
        raise ConfigError(f"the feed registry {path} is larger than {_MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"the feed registry {path} is not UTF-8 text") from None
    try:
        if path.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            data = untrusted.loads(text, max_chars=_MAX_BYTES)
        else:
            raise ConfigError(f"the feed registry {path} must be a .toml or .json file")
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(f"the feed registry {path} does not parse: {exc}") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"the feed registry {path} must hold an object")
    return parse_registry(data, name=path.stem)
