"""The universe at a season's start, from raw reads (W-UNI-1, W-UNI-2, W-PX-2, W-PX-4).

``choose_universe`` is a function of the registry's reads and the supplies it is
given, so it is tested here on fixtures; the adapter's ERC-20 reads against the
local JSON-RPC peer follow, garbage from the node included.
"""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from eth_utils.address import to_checksum_address

from tradeleague.errors import ConfigError
from tradeleague.feeds.registry import load_registry, parse_registry
from tradeleague.formats.weights import (
    FeedReading,
    LeftOut,
    PriceInvalid,
    SupplyReading,
    WeightsPreset,
    choose_universe,
)
from tradeleague.league.weights.universe import (
    UniverseUnreadable,
    read_universe,
    recorded_registry,
    view_of,
)
from tradeleague.testing.jsonrpc_peer import AggregatorState, JsonRpcPeer, PeerFault, TokenState
from tradeleague.testing.ports import refusing_url

AT = datetime(2026, 10, 5, 0, 0, tzinfo=UTC)
P = WeightsPreset()
HANG_S = 5.0
"""The deadline a read waits for a hung answer: answers that should come, however loaded
the machine, come well within it (a sub-second one failed them under load)."""
ANSWERED: dict[str, Any] = {"season": "S", "at": AT, "preset": P, "timeout_s": 60.0}
"""Reads where nothing hangs: the deadline can never be what decides the outcome."""


def _reading(
    symbol: str,
    answer: int | None,
    *,
    ago: timedelta = timedelta(hours=1),
    decimals: int = 8,
    multiplier: tuple[int, int] = (1, 1),
) -> FeedReading:
    return FeedReading(
        symbol=symbol,
        answer=answer,
        decimals=decimals,
        updated_at=AT - ago,
        multiplier=multiplier,
    )


def _supply(symbol: str, tokens: int, decimals: int = 18) -> SupplyReading:
    return SupplyReading(symbol=symbol, supply=tokens * 10**decimals, decimals=decimals)


def test_the_largest_values_outstanding_among_valid_prices_are_chosen() -> None:
    """W-UNI-1, W-PX-4: invalid prices, stopped feeds, tokenless and unreadable supplies are
    left out with their reason; the rest are ranked by supply x reference price."""
    symbols = [f"S{i:02d}" for i in range(24)]
    readings = {s: _reading(s, (10 + i) * 10**8) for i, s in enumerate(symbols)}
    supplies = {s: _supply(s, 1_000 + i) for i, s in enumerate(symbols)}
    readings["S23"] = _reading("S23", 0)  # zero
    readings["S22"] = _reading("S22", 10**8, decimals=18)  # other decimals than on record
    readings["S21"] = _reading("S21", 10**8, ago=timedelta(hours=30))  # stopped publishing
    del supplies["S20"]  # no token on record
    supplies["S19"] = SupplyReading(symbol="S19", supply=None, decimals=None, error="reverted")
    readings["S18"] = _reading("S18", 50 * 10**8, multiplier=(3, 2))  # W-PX-2: x1.5
    universe = choose_universe(readings, supplies, dict.fromkeys(symbols, 8), AT, P)
    rows = {r.symbol: r for r in universe.rows}
    assert rows["S23"].left_out is LeftOut.PRICE_INVALID
    assert rows["S23"].invalid is PriceInvalid.NOT_POSITIVE
    assert rows["S22"].invalid is PriceInvalid.DECIMALS_CHANGED
    assert rows["S21"].left_out is LeftOut.STALE
    assert rows["S20"].left_out is LeftOut.NO_TOKEN
    assert rows["S19"].left_out is LeftOut.SUPPLY_UNREADABLE
    assert rows["S18"].price == 75_000_000
    assert rows["S18"].value == 75 * 1_018 * 10**6
    assert rows["S18"].rank == 1
    valid = [s for s in symbols if s not in {"S23", "S22", "S21", "S20", "S19"}]
    assert len(valid) == 19
    assert universe.symbols == tuple(sorted(valid))  # fewer than 20 valid: all of them
    ranks = sorted((r.rank, r.symbol) for r in universe.rows if r.rank is not None)
    values = [rows[s].value or 0 for _, s in ranks]
    assert all(values)
    assert values == sorted(values, reverse=True)
    assert universe.stale_before == AT - timedelta(hours=1) - P.stale_after


def test_only_size_are_kept_and_the_rest_are_outside_the_top() -> None:
    """W-UNI-1: of 25 valid tokens, the 20 largest; ties go to the lower symbol."""
    symbols = [f"T{i:02d}" for i in range(25)]
    readings = {s: _reading(s, 100 * 10**8) for s in symbols}
    supplies = {s: _supply(s, 1_000 + (i // 2)) for i, s in enumerate(symbols)}  # pairs tie
    universe = choose_universe(readings, supplies, dict.fromkeys(symbols, 8), AT, P)
    assert universe.symbols == tuple(sorted(["T04", *symbols[6:]]))
    rows = {r.symbol: r for r in universe.rows}
    assert rows["T04"].value == rows["T05"].value  # a tie at the edge: the lower symbol is in
    assert (rows["T04"].rank, rows["T04"].chosen) == (20, True)
    assert (rows["T05"].rank, rows["T05"].left_out) == (21, LeftOut.OUTSIDE_TOP)


def test_the_universe_does_not_depend_on_the_order_of_its_inputs() -> None:
    """W-UNI-2: a function of the registry and the supplies, never of their order."""
    symbols = [f"R{i:02d}" for i in range(30)]
    rng = random.Random(7)
    readings = {s: _reading(s, rng.randint(1, 500) * 10**8) for s in symbols}
    supplies = {s: _supply(s, rng.randint(1, 10**6)) for s in symbols}
    first = choose_universe(readings, supplies, dict.fromkeys(symbols, 8), AT, P)
    order = list(symbols)
    rng.shuffle(order)
    again = choose_universe(
        {s: readings[s] for s in order},
        {s: supplies[s] for s in reversed(order)},
        dict.fromkeys(order, 8),
        AT,
        P,
    )
    assert first == again
    assert len(first.symbols) == 20


def test_a_weekend_silence_empties_nothing() -> None:
    """W-UNI-1, W-PX-3: every feed silent for two days (a weekend) is still a published feed;
    only a feed silent far longer than the freshest one is left out."""
    symbols = ["A", "B", "C"]
    readings = {s: _reading(s, 10**10, ago=timedelta(hours=50)) for s in symbols}
    readings["C"] = _reading("C", 10**10, ago=timedelta(hours=80))
    supplies = {s: _supply(s, 10) for s in symbols}
    universe = choose_universe(readings, supplies, dict.fromkeys(symbols, 8), AT, P)
    assert universe.symbols == ("A", "B")
    assert {r.symbol: r.left_out for r in universe.rows}["C"] is LeftOut.STALE


REGISTRY = {
    "chain_id": 46630,
    "feeds": {
        s: {
            "aggregator": f"0xa9{i + 1:038x}",
            "token": f"0x70{i + 1:038x}",
            "decimals": 8,
        }
        for i, s in enumerate(["AAA", "BBB", "CCC", "DDD"])
    },
}


def _peer_lists(peer: JsonRpcPeer) -> None:
    for i, _symbol in enumerate(["AAA", "BBB", "CCC", "DDD"]):
        peer.aggregators[to_checksum_address(f"0xa9{i + 1:038x}")] = AggregatorState(
            answer=(100 + i) * 10**8, updated_at=int((AT - timedelta(minutes=5)).timestamp())
        )
        peer.tokens[to_checksum_address(f"0x70{i + 1:038x}")] = TokenState(
            total_supply=(i + 1) * 10**24, decimals=18
        )


def test_the_adapter_reads_supplies_and_survives_a_hostile_node() -> None:
    """W-UNI-1: totalSupply and decimals are read over JSON-RPC; a reverting, garbage or
    hanging supply is a supply that could not be read, never a crash; the payload holds
    every input and the rounds' registry is rebuilt from it."""
    registry = parse_registry(REGISTRY, name="local")
    with JsonRpcPeer(chain_id=46630, block_time=int(AT.timestamp())) as peer:
        _peer_lists(peer)
        tokens = list(peer.tokens.values())
        tokens[1].faults["totalSupply"] = PeerFault.REVERT
        tokens[2].faults["decimals"] = PeerFault.GARBAGE
        tokens[3].faults["totalSupply"] = PeerFault.HANG
        payload = asyncio.run(
            read_universe(registry, peer.url, season="S", at=AT, preset=P, timeout_s=HANG_S)
        )
        assert peer.calls["eth_call:totalSupply"] == 4
    rows = {r["symbol"]: r for r in payload["rows"]}
    assert payload["symbols"] == ["AAA"]
    assert rows["AAA"]["supply"] == str(10**24)
    assert rows["AAA"]["value"] == str(10**6 * 100 * 10**6)
    for symbol in ("BBB", "CCC", "DDD"):
        assert rows[symbol]["left_out"] == "supply_unreadable"
        assert rows[symbol]["error"]
    assert "reverted" in rows["BBB"]["error"]
    assert "did not decode" in rows["CCC"]["error"]
    assert "no answer in time" in rows["DDD"]["error"]
    assert json.dumps(payload)  # canonical JSON: no floats, nothing exotic
    rounds = recorded_registry(payload)
    assert sorted(rounds.feeds) == ["AAA"]
    assert rounds.chain_id == 46630
    assert rounds.feeds["AAA"].aggregator == registry.feeds["AAA"].aggregator
    view = view_of("S", payload["symbols"], payload)
    assert view["rows"][0]["supply"] == "1000000"
    assert view["rows"][0]["value"] == "100000000.000000"


def test_no_node_or_no_valid_symbol_is_no_universe() -> None:
    """W-UNI-1: a season never opens on guesses: an unreachable node, a node on another
    chain, or a registry with no valid symbol is refused with a sentence."""
    registry = parse_registry(REGISTRY, name="local")
    with pytest.raises(UniverseUnreadable, match="could not be read"):
        asyncio.run(read_universe(registry, refusing_url(), season="S", at=AT, preset=P))
    with JsonRpcPeer(chain_id=1, block_time=int(AT.timestamp())) as peer:
        _peer_lists(peer)
        with pytest.raises(UniverseUnreadable, match="not 46630"):
            asyncio.run(read_universe(registry, peer.url, **ANSWERED))
    with JsonRpcPeer(chain_id=46630, block_time=int(AT.timestamp())) as peer:
        _peer_lists(peer)
        for feed in peer.aggregators.values():
            feed.answer = -1
        with pytest.raises(UniverseUnreadable, match="no symbol of registry local"):
            asyncio.run(read_universe(registry, peer.url, **ANSWERED))


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("big.toml", b"# " + b"x" * 1_000_001, "larger than"),
        ("bin.json", b"\xff\xfe\x00garbage", "not UTF-8"),
        ("deep.json", b"[" * 100_000, "does not parse"),
        ("many.json", json.dumps({"feeds": {f"S{i}": {} for i in range(1001)}}).encode(), "more"),
        ("list.json", b"[1, 2]", "must hold an object"),
        ("bad.toml", b"feeds = [", "does not parse"),
    ],
)
def test_a_hostile_registry_file_is_one_sentence(
    tmp_path: Path, name: str, content: bytes, match: str
) -> None:
    """Everything from outside is bounded before it is parsed: the registry file too."""
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=match):
        load_registry(path)
