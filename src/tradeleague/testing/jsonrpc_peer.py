"""A local Ethereum JSON-RPC peer: a real HTTP server on loopback with scripted feeds.

It answers ``eth_chainId``, ``eth_blockNumber``, ``eth_getBlockByNumber`` and
``eth_call`` (and ``eth_getCode``) exactly as a node would, with real ABI encoding (``eth_abi``):
``eth_call`` decodes the 4-byte selector of the call data and returns the
encoded result of the contract function at the called address, from an
in-memory state the test scripts:

- a Chainlink aggregator (``AggregatorState``): ``latestRoundData()`` as
  ``(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt,
  uint80 answeredInRound)``, ``decimals()`` as ``uint8``, ``description()``;
- a tokenised stock (``TokenState``): ``paused()`` as ``bool`` and
  ``multiplier()`` as ``uint256`` scaled by 10**18 (the ABI the league's
  Chainlink adapter reads, ``tradeleague.feeds.chainlink``), and the ERC-20
  ``totalSupply()`` as ``uint256`` and ``decimals()`` as ``uint8`` (what a
  season's universe is sized by).

Any call can be given a fault (``PeerFault``): a revert (JSON-RPC error 3 with
ABI-encoded ``Error(string)`` data, as geth answers), a plain JSON-RPC error,
garbage bytes for a result, or a hang (the answer comes only when the peer is
closed or the hang is released). The peer counts the calls it received, so a
test can assert that a round read every price once (W-RND-2).

Use it from tests::

    with JsonRpcPeer(chain_id=46630, block_time=t) as peer:
        peer.aggregators[addr] = AggregatorState(answer=650_00000000, updated_at=t)
        ...  # point ``ChainlinkSource`` at peer.url

or run it to try a feed registry locally (``tradeleague universe``): every feed
and token of the registry is listed with a made-up price and supply (clearly not
market data), updated when the peer starts::

    python -m tradeleague.testing.jsonrpc_peer --registry examples/universe/feeds.toml
"""

from __future__ import annotations

import argparse
import enum
import json
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from eth_abi.abi import encode
from eth_utils.abi import function_signature_to_4byte_selector
from eth_utils.address import to_checksum_address

from tradeleague.errors import ConfigError
from tradeleague.feeds.registry import FeedRegistry, load_registry

__all__ = ["AggregatorState", "JsonRpcPeer", "PeerFault", "TokenState", "selector"]

_HANG_LIMIT_S: Final = 30.0
"""A hung answer is released after this long at the latest."""


class PeerFault(enum.StrEnum):
    """How a scripted call misbehaves."""

    REVERT = "revert"
    """The call reverts (``execution reverted``)."""
    ERROR = "error"
    """The node answers with a JSON-RPC error."""
    GARBAGE = "garbage"
    """The node answers bytes that do not decode as the return type."""
    HANG = "hang"
    """The node does not answer (until released or closed)."""


def selector(signature: str) -> str:
    """Return the 4-byte selector of ``signature`` as ``0x`` hex (e.g. ``decimals()``)."""
    return "0x" + function_signature_to_4byte_selector(signature).hex()


@dataclass(slots=True)
class AggregatorState:
    """One Chainlink aggregator's answers (all scriptable).

    Attributes
    ----------
    answer
        ``latestRoundData().answer`` (``int256``, may be zero or negative).
    updated_at
        ``latestRoundData().updatedAt``, Unix seconds (0: no update time).
    decimals
        ``decimals()``.
    round_id
        ``latestRoundData().roundId`` (and ``answeredInRound``).
    description
        ``description()``.
    faults
        Function name (``latestRoundData``, ``decimals``...) -> its fault.
    """

    answer: int
    updated_at: int
    decimals: int = 8
    round_id: int = 1
    description: str = "STOCK / USD"
    faults: dict[str, PeerFault] = field(default_factory=dict)


@dataclass(slots=True)
class TokenState:
    """One tokenised stock's answers.

    Its paused flag, its multiplier (10**18 = 1), and its ERC-20
    ``totalSupply()`` (raw, in units of ``10**-decimals`` tokens) and ``decimals()``.
    """

    paused: bool = False
    multiplier: int = 10**18
    total_supply: int = 0
    decimals: int = 18
    faults: dict[str, PeerFault] = field(default_factory=dict)


_AGGREGATOR_FUNCTIONS: Final = {
    selector("latestRoundData()"): "latestRoundData",
    selector("decimals()"): "decimals",
    selector("description()"): "description",
}
_TOKEN_FUNCTIONS: Final = {
    selector("paused()"): "paused",
    selector("multiplier()"): "multiplier",
    selector("totalSupply()"): "totalSupply",
    selector("decimals()"): "decimals",
}


class _RpcError(Exception):
    def __init__(self, code: int, message: str, data: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class _Hang(Exception):
    pass


def _revert_data(message: str) -> str:
    return selector("Error(string)") + encode(["string"], [message]).hex()


class JsonRpcPeer:
    """A scriptable JSON-RPC node on ``127.0.0.1`` (see the module docstring).

    Parameters
    ----------
    chain_id
        What ``eth_chainId`` answers.
    block_time
        The latest block's timestamp, Unix seconds.
    block_number
        The latest block's number.
    """

    def __init__(
        self, *, chain_id: int = 46630, block_time: int = 0, block_number: int = 1, port: int = 0
    ) -> None:
        self.port = port
        self.chain_id = chain_id
        self.block_time = block_time
        self.block_number = block_number
        self.aggregators: dict[str, AggregatorState] = {}
        self.tokens: dict[str, TokenState] = {}
        self.node_faults: dict[str, PeerFault] = {}
        """JSON-RPC method (``eth_getBlockByNumber``...) -> its fault."""
        self.calls: Counter[str] = Counter()
        """``method`` or ``eth_call:<function>`` -> how many were received."""
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Return the peer's HTTP URL."""
        if self._server is None:
            raise RuntimeError("the peer is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> JsonRpcPeer:
        """Start serving on a free loopback port."""
        peer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                try:
                    answer = peer.handle(json.loads(body))
                except _Hang:
                    peer._release.wait(_HANG_LIMIT_S)
                    answer = {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32000, "message": "late"},
                    }
                data = json.dumps(answer).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up waiting (a hang it timed out on)

            def log_message(self, format: str, *args: Any) -> None:
                return

        class Server(ThreadingHTTPServer):
            request_queue_size = 256
            daemon_threads = True

        self._release.clear()
        server = Server(("127.0.0.1", self.port), Handler)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Release every hung answer and stop serving."""
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> JsonRpcPeer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def list_registry(self, registry: FeedRegistry, updated_at: int) -> None:
        """List every feed and token of ``registry`` with a made-up price and supply.

        Feed ``i`` (in the registry's order) answers ``20 + (37 i mod 480)`` dollars at
        its decimals on record, last updated at ``updated_at``; its token has a supply
        of ``(1 + (7919 i mod 97)) x 10**5`` whole tokens (18 decimals). For trying the
        universe locally; these are not market data.
        """
        for i, feed in enumerate(registry.feeds.values()):
            dollars = 20 + (37 * i) % 480
            self.aggregators[feed.aggregator] = AggregatorState(
                answer=dollars * 10**feed.decimals,
                updated_at=updated_at,
                decimals=feed.decimals,
                description=f"{feed.symbol} / USD",
            )
            if feed.token is not None:
                supply = (1 + (7919 * i) % 97) * 10**5 * 10**18
                self.tokens[feed.token] = TokenState(total_supply=supply, decimals=18)

    def release_hangs(self) -> None:
        """Let every hung answer go (each answers with a JSON-RPC error)."""
        self._release.set()

    def handle(self, request: Any) -> Any:
        """Answer one JSON-RPC request object, or a batch (a list of them)."""
        if isinstance(request, list):
            return [self.handle(r) for r in request]
        rid = request.get("id")
        try:
            result = self._dispatch(str(request.get("method")), list(request.get("params") or []))
        except _RpcError as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            return {"jsonrpc": "2.0", "id": rid, "error": error}
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def _fault(self, fault: PeerFault | None, garbage: str = "0x1234") -> str | None:
        if fault is None:
            return None
        if fault is PeerFault.HANG:
            raise _Hang
        if fault is PeerFault.REVERT:
            raise _RpcError(3, "execution reverted: scripted", _revert_data("scripted"))
        if fault is PeerFault.ERROR:
            raise _RpcError(-32000, "scripted node error")
        return garbage

    def _count(self, what: str) -> None:
        with self._lock:
            self.calls[what] += 1

    def _dispatch(self, method: str, params: list[Any]) -> Any:
        self._count(method)
        garbage = self._fault(self.node_faults.get(method))
        if garbage is not None:
            return garbage
        if method == "eth_chainId":
            return hex(self.chain_id)
        if method == "eth_blockNumber":
            return hex(self.block_number)
        if method == "eth_getBlockByNumber":
            return self._block()
        if method == "eth_call":
            return self._call(params[0])
        if method == "eth_getCode":
            to = to_checksum_address(str(params[0]))
            return "0x6080" if to in self.aggregators or to in self.tokens else "0x"
        raise _RpcError(-32601, f"the method {method} does not exist/is not available")

    def _block(self) -> dict[str, Any]:
        zero32 = "0x" + "00" * 32
        return {
            "number": hex(self.block_number),
            "hash": "0x" + f"{self.block_number:064x}",
            "parentHash": zero32,
            "timestamp": hex(self.block_time),
            "miner": "0x" + "00" * 20,
            "gasLimit": hex(30_000_000),
            "gasUsed": "0x0",
            "baseFeePerGas": "0x1",
            "difficulty": "0x0",
            "extraData": "0x",
            "logsBloom": "0x" + "00" * 256,
            "nonce": "0x0000000000000000",
            "sha3Uncles": zero32,
            "stateRoot": zero32,
            "transactionsRoot": zero32,
            "receiptsRoot": zero32,
            "mixHash": zero32,
            "size": "0x0",
            "totalDifficulty": "0x0",
            "transactions": [],
            "uncles": [],
        }

    def _call(self, tx: dict[str, Any]) -> str:
        to = to_checksum_address(str(tx.get("to")))
        data = str(tx.get("data") or tx.get("input") or "0x")
        sel = data[:10].lower()
        if to in self.aggregators and sel in _AGGREGATOR_FUNCTIONS:
            name = _AGGREGATOR_FUNCTIONS[sel]
            self._count(f"eth_call:{name}")
            feed = self.aggregators[to]
            garbage = self._fault(feed.faults.get(name))
            if garbage is not None:
                return garbage
            if name == "latestRoundData":
                values = [
                    feed.round_id,
                    feed.answer,
                    feed.updated_at,
                    feed.updated_at,
                    feed.round_id,
                ]
                return (
                    "0x"
                    + encode(["uint80", "int256", "uint256", "uint256", "uint80"], values).hex()
                )
            if name == "decimals":
                return "0x" + encode(["uint8"], [feed.decimals]).hex()
            return "0x" + encode(["string"], [feed.description]).hex()
        if to in self.tokens and sel in _TOKEN_FUNCTIONS:
            name = _TOKEN_FUNCTIONS[sel]
            self._count(f"eth_call:{name}")
            token = self.tokens[to]
            garbage = self._fault(token.faults.get(name))
            if garbage is not None:
                return garbage
            if name == "paused":
                return "0x" + encode(["bool"], [token.paused]).hex()
            if name == "totalSupply":
                return "0x" + encode(["uint256"], [token.total_supply]).hex()
            if name == "decimals":
                return "0x" + encode(["uint8"], [token.decimals]).hex()
            return "0x" + encode(["uint256"], [token.multiplier]).hex()
        # No code at the address, or no such function: what a node answers for an account.
        return "0x"


def main(argv: list[str] | None = None) -> int:
    """Serve a registry's feeds and tokens with made-up prices on 127.0.0.1 until Ctrl-C."""
    parser = argparse.ArgumentParser(
        prog="python -m tradeleague.testing.jsonrpc_peer",
        description="A local JSON-RPC node listing a feed registry with made-up prices and "
        "supplies, for trying `tradeleague universe` (not market data).",
    )
    parser.add_argument("--registry", required=True, help="a feed registry file (.toml, .json)")
    parser.add_argument("--port", type=int, default=8545, help="the port (default 8545)")
    args = parser.parse_args(argv)
    try:
        registry = load_registry(Path(args.registry))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    now = int(time.time())
    peer = JsonRpcPeer(chain_id=registry.chain_id or 46630, block_time=now, port=args.port)
    peer.list_registry(registry, now - 60)
    with peer:
        print(f"serving {len(registry.feeds)} feeds of {registry.name} at {peer.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            return 0
    return 0  # pragma: no cover - the wait above ends only by Ctrl-C


if __name__ == "__main__":  # pragma: no cover - run by hand
    sys.exit(main())
