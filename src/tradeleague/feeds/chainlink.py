"""Chainlink feeds over Ethereum JSON-RPC with ``web3``: the live price source (W-PX, W-MKT).

Once per round, ``ChainlinkSource.read`` asks one node for:

- its latest block (``eth_getBlockByNumber('latest')``): the block's time is
  the node's freshness (W-MKT-2: a block more than 5 minutes old closes the
  market); a node that does not answer, or answers for another chain than the
  registry's ``chain_id``, is "no node" (``node_block_time=None``);
- for each symbol's aggregator (``AggregatorV3Interface``): ``latestRoundData()``
  (its ``answer`` and ``updatedAt``) and ``decimals()``;
- for each symbol's Stock Token: ``paused()`` (``bool``: the issuer paused the
  feed, as during a corporate action) and ``multiplier()`` (``uint256``, tokens
  to shares scaled by ``10**multiplier_decimals``, 10**18 by default). This is
  the token ABI the league assumes (``TOKEN_ABI``); a token exposing another
  interface needs its own adapter.

At a weights season's start, ``ChainlinkSource.read_universe`` reads every
feed on record the same way, and each token's ERC-20 ``totalSupply()`` and
``decimals()`` (``ERC20_ABI``), for the universe (W-UNI-1:
``tradeleague.formats.weights.choose_universe`` judges them).

Every call is made concurrently and bounded by ``timeout_s``. A call that
reverts, errors, answers bytes that do not decode, or does not answer in time
leaves its field ``None`` with the reason in ``FeedReading.error`` (never the
node's URL, which may hold a key). The format then judges the raw reads
(``tradeleague.formats.weights.check_price`` for W-PX-4, ``assess_market``
for W-MKT-1/W-MKT-2): an unreadable answer, decimals or multiplier is an
invalid price, an unreadable paused flag halts the symbol.

Reference price (W-PX-2), exact integers: ``price_micros = floor(answer x 10**6
x m / (10**decimals x 10**multiplier_decimals))`` where ``m`` is the token's
multiplier: the price of one token in micro-dollars, rounded down once, at the
end (``tradeleague.formats.weights.reference_price``). An ``updatedAt`` of 0 is
"no update time"; one past the year 9999 reads as the far future (W-PX-4).

Trailing returns and closes for the message (W-ASK-1) do not come from the
chain: they come from the optional ``history`` source (for example frozen daily
bars the operator keeps up to date); without one every return is unknown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, Final, TypeVar

from aiohttp import ClientError
from eth_abi.exceptions import DecodingError
from web3 import AsyncHTTPProvider, AsyncWeb3
from web3.exceptions import (
    BadFunctionCallOutput,
    ContractLogicError,
    Web3Exception,
    Web3RPCError,
)
from web3.types import RPCEndpoint

from tradeleague.feeds import PriceSource, SourceReading
from tradeleague.feeds.registry import FeedEntry, FeedRegistry
from tradeleague.formats.weights import RETURN_PERIODS, FeedReading, SupplyReading
from tradeleague.money import Usd

__all__ = ["AGGREGATOR_ABI", "ERC20_ABI", "TOKEN_ABI", "ChainlinkSource", "updated_time"]

T = TypeVar("T")

AGGREGATOR_ABI: Final[list[dict[str, Any]]] = [
    {
        "type": "function",
        "name": "latestRoundData",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [
            {"name": "roundId", "type": "uint80"},
            {"name": "answer", "type": "int256"},
            {"name": "startedAt", "type": "uint256"},
            {"name": "updatedAt", "type": "uint256"},
            {"name": "answeredInRound", "type": "uint80"},
        ],
    },
    {
        "type": "function",
        "name": "decimals",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"name": "", "type": "uint8"}],
    },
]
"""The part of Chainlink's ``AggregatorV3Interface`` the league reads."""

TOKEN_ABI: Final[list[dict[str, Any]]] = [
    {
        "type": "function",
        "name": "paused",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"name": "", "type": "bool"}],
    },
    {
        "type": "function",
        "name": "multiplier",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"name": "", "type": "uint256"}],
    },
]
"""The Stock Token interface the league assumes: ``paused()`` and ``multiplier()``."""

ERC20_ABI: Final[list[dict[str, Any]]] = [
    {
        "type": "function",
        "name": "totalSupply",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"name": "", "type": "uint256"}],
    },
    {
        "type": "function",
        "name": "decimals",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"name": "", "type": "uint8"}],
    },
]
"""The part of ERC-20 a season's universe reads: ``totalSupply()`` and ``decimals()``."""

_FAR_FUTURE: Final = datetime.max.replace(tzinfo=UTC)


def updated_time(seconds: int) -> datetime | None:
    """Return a feed's ``updatedAt`` as a UTC time: ``None`` for 0, the far future past 9999.

    Examples
    --------
    >>> updated_time(0) is None, updated_time(1_800_000_000).year, updated_time(2**255).year
    (True, 2027, 9999)
    """
    if seconds <= 0:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, ValueError, OSError):
        return _FAR_FUTURE


def _why(exc: BaseException) -> str:
    """Return what went wrong, in words safe to record (no URL, no key)."""
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, ContractLogicError):
        return "the call reverted"
    if isinstance(exc, BadFunctionCallOutput | DecodingError):
        return "the answer did not decode"
    if isinstance(exc, Web3RPCError):
        return "the node answered an error"
    if isinstance(exc, OSError | ClientError):
        return "the node could not be reached"
    return f"the call failed ({type(exc).__name__})"


class ChainlinkSource:
    """Chainlink feeds read over JSON-RPC, as a ``PriceSource`` (see the module docstring).

    Parameters
    ----------
    registry
        The feeds on record.
    url
        The node's HTTP JSON-RPC endpoint (kept out of every record).
    timeout_s
        How long each call may take.
    history
        Where trailing returns and closes come from (``None``: unknown).
    """

    def __init__(
        self,
        registry: FeedRegistry,
        url: str,
        *,
        timeout_s: float = 5.0,
        history: PriceSource | None = None,
    ) -> None:
        self.registry = registry
        self.name = f"chainlink:{registry.name}"
        self.synthetic = False
        self._url = url
        self._timeout_s = timeout_s
        self._history = history

    async def _call(self, what: str, call: Awaitable[T], errors: list[str]) -> T | None:
        try:
            async with asyncio.timeout(self._timeout_s):
                return await call
        except (
            TimeoutError,
            OSError,
            ClientError,
            Web3Exception,
            DecodingError,
            ValueError,
        ) as exc:
            errors.append(f"{what}: {_why(exc)}")
            return None

    async def _node_time(self, w3: AsyncWeb3[Any], errors: list[str]) -> datetime | None:
        chain = await self._call("eth_chainId", w3.eth.chain_id, errors)  # cached for the read
        if chain is None:
            return None
        if self.registry.chain_id is not None and chain != self.registry.chain_id:
            errors.append(f"the node is on chain {chain}, not {self.registry.chain_id}")
            return None
        block = await self._call("eth_getBlockByNumber", w3.eth.get_block("latest"), errors)
        if block is None or "timestamp" not in block:
            return None
        return updated_time(int(block["timestamp"]))

    async def _feed(self, w3: AsyncWeb3[Any], feed: FeedEntry) -> FeedReading:
        errors: list[str] = []
        aggregator = w3.eth.contract(address=feed.aggregator, abi=AGGREGATOR_ABI)
        reads: list[Awaitable[Any]] = [
            self._call("latestRoundData", aggregator.functions.latestRoundData().call(), errors),
            self._call("decimals", aggregator.functions.decimals().call(), errors),
        ]
        if feed.token is not None:
            token = w3.eth.contract(address=feed.token, abi=TOKEN_ABI)
            reads.append(self._call("paused", token.functions.paused().call(), errors))
            reads.append(self._call("multiplier", token.functions.multiplier().call(), errors))
        results = await asyncio.gather(*reads)
        latest, decimals = results[0], results[1]
        paused: bool | None = False
        multiplier: tuple[int, int] | None = (1, 1)
        if feed.token is not None:
            paused = None if results[2] is None else bool(results[2])
            raw = results[3]
            multiplier = None if raw is None else (int(raw), 10**self.registry.multiplier_decimals)
        return FeedReading(
            symbol=feed.symbol,
            answer=None if latest is None else int(latest[1]),
            decimals=None if decimals is None else int(decimals),
            updated_at=None if latest is None else updated_time(int(latest[3])),
            paused=paused,
            multiplier=multiplier,
            error="; ".join(sorted(errors)) or None,
        )

    async def _supply(self, w3: AsyncWeb3[Any], feed: FeedEntry) -> SupplyReading:
        errors: list[str] = []
        if feed.token is None:  # pragma: no cover - read_universe asks only tokens on record
            return SupplyReading(symbol=feed.symbol, supply=None, decimals=None)
        token = w3.eth.contract(address=feed.token, abi=ERC20_ABI)
        supply, decimals = await asyncio.gather(
            self._call("totalSupply", token.functions.totalSupply().call(), errors),
            self._call("token decimals", token.functions.decimals().call(), errors),
        )
        return SupplyReading(
            symbol=feed.symbol,
            supply=None if supply is None else int(supply),
            decimals=None if decimals is None else int(decimals),
            error="; ".join(sorted(errors)) or None,
        )

    def _provider(self) -> AsyncHTTPProvider:
        return AsyncHTTPProvider(
            self._url,
            exception_retry_configuration=None,
            cache_allowed_requests=True,
            cacheable_requests={RPCEndpoint("eth_chainId")},
        )

    async def _read(
        self, w3: AsyncWeb3[Any], symbols: Sequence[str], at: datetime, node_errors: list[str]
    ) -> SourceReading:
        node_time = await self._node_time(w3, node_errors)
        known = [s for s in symbols if s in self.registry.feeds]
        if node_time is None:
            why = "; ".join(node_errors) or "no block"
            read = [_unreadable(s, f"node: {why}") for s in known]
        else:
            read = list(
                await asyncio.gather(*(self._feed(w3, self.registry.feeds[s]) for s in known))
            )
        readings = {r.symbol: r for r in read}
        for symbol in symbols:
            if symbol not in readings:
                readings[symbol] = _unreadable(symbol, "no feed on record for this symbol")
        return SourceReading(
            read_at=at,
            node_block_time=node_time,
            readings=readings,
            decimals={s: f.decimals for s, f in self.registry.feeds.items() if s in symbols},
        )

    async def read(self, symbols: Sequence[str], at: datetime) -> SourceReading:
        """Read the node's latest block and every symbol's feed and token once, at ``at``."""
        provider = self._provider()
        try:
            return await self._read(AsyncWeb3(provider), symbols, at, [])
        finally:
            await provider.disconnect()

    async def read_universe(
        self, at: datetime
    ) -> tuple[SourceReading, dict[str, SupplyReading], str | None]:
        """Read every feed on record and each token's supply once, at ``at`` (W-UNI-1).

        Returns the feeds' reading, the supplies of the symbols whose registry
        entry names a token, and why the node could not be read (``None`` when
        it could: then ``node_block_time`` is set).
        """
        provider = self._provider()
        try:
            w3 = AsyncWeb3(provider)
            node_errors: list[str] = []
            reading = await self._read(w3, list(self.registry.feeds), at, node_errors)
            supplies: dict[str, SupplyReading] = {}
            if reading.node_block_time is not None:
                tokens = [f for f in self.registry.feeds.values() if f.token is not None]
                read = await asyncio.gather(*(self._supply(w3, f) for f in tokens))
                supplies = {r.symbol: r for r in read}
        finally:
            await provider.disconnect()
        node_error = None
        if reading.node_block_time is None:
            node_error = "; ".join(node_errors) or "the node gave no latest block"
        return reading, supplies, node_error

    def returns(self, symbol: str, at: datetime) -> Mapping[int, Fraction | None]:
        """Return the symbol's trailing returns from ``history``, or all unknown."""
        if self._history is None:
            return dict.fromkeys(RETURN_PERIODS)
        return self._history.returns(symbol, at)

    def history(self, symbol: str, at: datetime, keep: int) -> list[Usd]:
        """Return up to ``keep`` closes from ``history``, or none."""
        if self._history is None:
            return []
        return self._history.history(symbol, at, keep)


def _unreadable(symbol: str, error: str) -> FeedReading:
    return FeedReading(
        symbol=symbol,
        answer=None,
        decimals=None,
        updated_at=None,
        paused=None,
        multiplier=None,
        error=error,
    )
