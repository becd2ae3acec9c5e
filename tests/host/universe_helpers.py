"""A feed registry of 25 tokens on the local JSON-RPC peer, some of them broken, for the
universe tests (the host's season start, ``tradeleague universe``, the pages)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from eth_utils.address import to_checksum_address

from tradeleague.testing.jsonrpc_peer import AggregatorState, JsonRpcPeer, TokenState

CHAIN = 46630
SYMBOLS = (
    "AAPL", "ABBV", "ADBE", "AMAT", "AMD", "AMZN", "AVGO", "BA", "BAC", "BRK-B", "BX", "CAT",
    "COIN", "COST", "CRM", "CSCO", "CVX", "DIA", "DIS", "GE", "GLD", "GOOG", "GOOGL", "GS", "HD",
)  # fmt: skip
"""25 symbols the daily bars in ../shared/data hold."""
STALE, ZERO, WRONG_DECIMALS = "AMZN", "AVGO", "BRK-B"
"""Broken feeds: silent for three days, answering zero, reporting 18 decimals (8 on record)."""
BROKEN = {STALE: "stale", ZERO: "price_invalid", WRONG_DECIMALS: "price_invalid"}


def aggregator(i: int) -> str:
    """Return the local peer's address of feed ``i`` (not a mainnet address)."""
    return f"0x{0xA9:02x}{i + 1:038x}"


def token(i: int) -> str:
    """Return the local peer's address of token ``i`` (not a mainnet address)."""
    return f"0x{0x70:02x}{i + 1:038x}"


@dataclass(frozen=True, slots=True)
class Listed:
    """One token as the peer lists it: its share price (8 decimals) and supply (18)."""

    symbol: str
    answer: int
    supply: int

    @property
    def value_micros(self) -> int:
        """Return supply x reference price (micro-dollars, rounded down) in micro-dollars,
        computed apart from the code under test."""
        return self.supply * (self.answer // 100) // 10**18


def listing(i: int, symbol: str) -> Listed:
    """Return symbol ``i``'s price and supply: values all different, broken feeds the largest."""
    answer = (50 + 7 * i) * 10**8 + 12_345_678
    tokens = 10_000 + ((i * 7919) % 25) * 1_000
    if symbol in BROKEN:
        tokens = 10**9  # by far the largest: only the price checks keep them out
    elif i >= len(SYMBOLS):
        tokens = 10**8  # a symbol added to the registry later: large enough to be chosen
    return Listed(symbol, answer, tokens * 10**18)


def registry_text(symbols: tuple[str, ...] = SYMBOLS, extra: dict[str, int] | None = None) -> str:
    """Return a TOML registry for ``symbols`` (and ``extra``: symbol -> index) on the peer."""
    lines = [f"chain_id = {CHAIN}", ""]
    indexed = {s: SYMBOLS.index(s) for s in symbols} | (extra or {})
    for symbol, i in indexed.items():
        lines += [
            f'[feeds."{symbol}"]',
            f'aggregator = "{aggregator(i)}"',
            f'token = "{token(i)}"',
            "decimals = 8",
            "",
        ]
    return "\n".join(lines)


def script_peer(peer: JsonRpcPeer, updated: datetime, extra: dict[str, int] | None = None) -> None:
    """List every symbol (and ``extra``) on ``peer``, feeds last updated at ``updated``."""
    t = int(updated.timestamp())
    for symbol, i in {s: n for n, s in enumerate(SYMBOLS)}.items() | (extra or {}).items():
        listed = listing(i, symbol)
        answer, decimals, at = listed.answer, 8, t
        if symbol == STALE:
            at = t - 3 * 86_400
        elif symbol == ZERO:
            answer = 0
        elif symbol == WRONG_DECIMALS:
            decimals = 18
        peer.aggregators[to_checksum_address(aggregator(i))] = AggregatorState(
            answer=answer, updated_at=at, decimals=decimals
        )
        peer.tokens[to_checksum_address(token(i))] = TokenState(total_supply=listed.supply)
    peer.block_time = t


def expected_universe(
    symbols: tuple[str, ...] = SYMBOLS, extra: dict[str, int] | None = None
) -> list[str]:
    """Return the 20 valid symbols with the largest value outstanding, computed apart."""
    indexed = {s: SYMBOLS.index(s) for s in symbols} | (extra or {})
    valid = [listing(i, s) for s, i in indexed.items() if s not in BROKEN]
    valid.sort(key=lambda x: (-x.value_micros, x.symbol))
    return sorted(x.symbol for x in valid[:20])


def write_registry(path: Path, text: str) -> Path:
    """Write the registry file and return its path."""
    path.write_text(text, encoding="utf-8")
    return path
