"""The Chainlink price source against a real local JSON-RPC peer (W-PX-2, W-PX-4, W-MKT-1,
W-MKT-2, W-HOLD-1, W-HOLD-2, W-RND-2, W-UNI-2).

Every case is produced by the peer (``tradeleague.testing.jsonrpc_peer``): a real HTTP
JSON-RPC server on loopback answering ``eth_call`` with real ABI encoding, read by the
adapter through ``web3``; the format's rules then judge what was read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest

from tradeleague.clock import ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind, check_events
from tradeleague.feeds import PriceSource, SourceReading
from tradeleague.feeds.chainlink import ChainlinkSource
from tradeleague.feeds.registry import FeedRegistry, load_registry, parse_registry
from tradeleague.formats.weights import (
    ClosedReason,
    Division,
    HaltReason,
    MarketAssessment,
    PriceInvalid,
    WeightsPreset,
    assess_market,
)
from tradeleague.league.pacing import LivePacing
from tradeleague.league.weights import ops
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.round import play_round
from tradeleague.money import MICRO
from tradeleague.store import open_store
from tradeleague.testing.jsonrpc_peer import AggregatorState, JsonRpcPeer, PeerFault, TokenState
from tradeleague.testing.ports import refusing_url

AT = datetime(2026, 10, 5, 15, 0, tzinfo=UTC)
T = int(AT.timestamp())
SYMBOLS = ("AAPL", "SPY", "TSLA")
ANSWERS = {"AAPL": 254_12345678, "SPY": 650_12345678, "TSLA": 431_00000001}
MULTIPLIERS = {"AAPL": 10**18, "SPY": 1_050_000_000_000_000_000, "TSLA": 10**18}
CHAIN = 46630


def aggregator(i: int) -> str:
    return "0x" + f"{0x11 * (i + 1):02x}" * 20


def token(i: int) -> str:
    return "0x" + f"{0xA1 + i:02x}" * 20


REGISTRY_DATA: dict[str, object] = {
    "chain_id": CHAIN,
    "feeds": {
        s: {"aggregator": aggregator(i), "token": token(i), "decimals": 8}
        for i, s in enumerate(SYMBOLS)
    },
}


@pytest.fixture
def registry() -> FeedRegistry:
    return parse_registry(REGISTRY_DATA, name="test")


@pytest.fixture
def peer(registry: FeedRegistry) -> Iterator[JsonRpcPeer]:
    with JsonRpcPeer(chain_id=CHAIN, block_time=T - 12) as p:
        for s, feed in registry.feeds.items():
            p.aggregators[feed.aggregator] = AggregatorState(answer=ANSWERS[s], updated_at=T - 60)
            assert feed.token is not None
            p.tokens[feed.token] = TokenState(multiplier=MULTIPLIERS[s])
        yield p


def agg(peer: JsonRpcPeer, registry: FeedRegistry, symbol: str) -> AggregatorState:
    return peer.aggregators[registry.feeds[symbol].aggregator]


def tok(peer: JsonRpcPeer, registry: FeedRegistry, symbol: str) -> TokenState:
    token = registry.feeds[symbol].token
    assert token is not None
    return peer.tokens[token]


def read(
    peer: JsonRpcPeer, registry: FeedRegistry, at: datetime = AT, **kw: object
) -> tuple[SourceReading, MarketAssessment]:
    source = ChainlinkSource(registry, peer.url, timeout_s=2.0)
    reading = asyncio.run(source.read(SYMBOLS, at))
    assessed = assess_market(
        reading.readings,
        reading.decimals,
        at,
        reading.node_block_time,
        WeightsPreset(),
        **kw,  # type: ignore[arg-type]
    )
    return reading, assessed


def test_source_is_a_price_source(registry: FeedRegistry) -> None:
    """The adapter plugs into the league's one price-source interface (C-11)."""
    source = ChainlinkSource(registry, "http://127.0.0.1:9")
    assert isinstance(source, PriceSource)
    assert source.synthetic is False
    assert dict(source.returns("SPY", AT)) == {1: None, 5: None, 20: None}  # W-ASK-1 unknown
    assert source.history("SPY", AT, 5) == []


def test_healthy_read_gives_reference_prices(peer: JsonRpcPeer, registry: FeedRegistry) -> None:
    """W-PX-2, W-MKT-2, W-RND-2: one read per call; price = share price x multiplier, floored."""
    reading, assessed = read(peer, registry)
    assert reading.node_block_time == AT - timedelta(seconds=12)
    assert assessed.open
    assert assessed.status_text == "Market open"
    for s in SYMBOLS:
        share = Fraction(ANSWERS[s], 10**8)
        expected = share * Fraction(MULTIPLIERS[s], 10**18) * MICRO
        assert assessed.prices[s] == int(expected)  # rounded down, exactly
        assert expected - 1 < assessed.prices[s] <= expected
    assert assessed.prices["SPY"] == 682_629_629  # 650.12345678 x 1.05 = 682.629629619
    for function in ("latestRoundData", "decimals", "paused", "multiplier"):
        assert peer.calls[f"eth_call:{function}"] == len(SYMBOLS)
    assert peer.calls["eth_getBlockByNumber"] == 1


def _set(field: str, value: object) -> Callable[[AggregatorState, TokenState], None]:
    def apply(feed: AggregatorState, token: TokenState) -> None:
        setattr(feed, field, value)

    return apply


def _fault(
    target: str, function: str, fault: PeerFault
) -> Callable[[AggregatorState, TokenState], None]:
    def apply(feed: AggregatorState, token: TokenState) -> None:
        (feed if target == "feed" else token).faults[function] = fault

    return apply


INVALID_CASES = [
    ("revert", _fault("feed", "latestRoundData", PeerFault.REVERT), PriceInvalid.UNREADABLE),
    ("rpc error", _fault("feed", "latestRoundData", PeerFault.ERROR), PriceInvalid.UNREADABLE),
    ("garbage", _fault("feed", "latestRoundData", PeerFault.GARBAGE), PriceInvalid.UNREADABLE),
    ("hang", _fault("feed", "latestRoundData", PeerFault.HANG), PriceInvalid.UNREADABLE),
    ("decimals revert", _fault("feed", "decimals", PeerFault.REVERT), PriceInvalid.UNREADABLE),
    (
        "multiplier garbage",
        _fault("token", "multiplier", PeerFault.GARBAGE),
        PriceInvalid.UNREADABLE,
    ),
    ("zero", _set("answer", 0), PriceInvalid.NOT_POSITIVE),
    ("negative", _set("answer", -25_400_000_000), PriceInvalid.NOT_POSITIVE),
    ("below a cent", _set("answer", 999_999), PriceInvalid.BELOW_MINIMUM),
    ("no update time", _set("updated_at", 0), PriceInvalid.NO_UPDATE_TIME),
    ("5 min + 1 s ahead", _set("updated_at", T + 301), PriceInvalid.FUTURE_UPDATE_TIME),
    ("beyond year 9999", _set("updated_at", 2**200), PriceInvalid.FUTURE_UPDATE_TIME),
    ("other decimals", _set("decimals", 18), PriceInvalid.DECIMALS_CHANGED),
    ("too large", _set("answer", 2**53), PriceInvalid.TOO_LARGE),
    ("int256 max", _set("answer", 2**255 - 1), PriceInvalid.TOO_LARGE),
]


@pytest.mark.parametrize(
    ("name", "script", "reason"), INVALID_CASES, ids=[c[0] for c in INVALID_CASES]
)
def test_every_invalid_read_from_the_peer(
    peer: JsonRpcPeer,
    registry: FeedRegistry,
    name: str,
    script: Callable[[AggregatorState, TokenState], None],
    reason: PriceInvalid,
) -> None:
    """W-PX-4: each way a read is not valid, produced by the node; the market closes (W-MKT-2)."""
    script(agg(peer, registry, "TSLA"), tok(peer, registry, "TSLA"))
    reading, assessed = read(peer, registry)
    assert assessed.checks["TSLA"].invalid is reason, name
    assert assessed.checks["AAPL"].valid
    assert assessed.checks["SPY"].valid
    assert assessed.invalid == {"TSLA": reason.value}
    assert ClosedReason.INVALID_PRICE in assessed.closed
    error = reading.readings["TSLA"].error
    if reason is PriceInvalid.UNREADABLE:
        assert error is not None
        assert peer.url not in error
        assert "127.0.0.1" not in error
    else:
        assert error is None


def test_valid_boundaries_from_the_peer(peer: JsonRpcPeer, registry: FeedRegistry) -> None:
    """W-PX-4: exactly 0.01 USD and an update exactly five minutes ahead are valid."""
    agg(peer, registry, "TSLA").answer = 1_000_000
    agg(peer, registry, "AAPL").updated_at = T + 300
    _, assessed = read(peer, registry)
    assert assessed.open
    assert assessed.prices["TSLA"] == 10_000


@pytest.mark.parametrize(
    ("script", "halt"),
    [
        (lambda f, t: setattr(f, "updated_at", T - 25 * 3600 - 1), HaltReason.STALE),
        (lambda f, t: setattr(t, "paused", True), HaltReason.PAUSED),
        (
            lambda f, t: t.faults.__setitem__("paused", PeerFault.REVERT),
            HaltReason.PAUSED_UNREADABLE,
        ),
        (lambda f, t: t.faults.__setitem__("paused", PeerFault.HANG), HaltReason.PAUSED_UNREADABLE),
    ],
    ids=["stale", "paused", "paused revert", "paused hang"],
)
def test_halts_from_the_peer(
    peer: JsonRpcPeer,
    registry: FeedRegistry,
    script: Callable[[AggregatorState, TokenState], None],
    halt: HaltReason,
) -> None:
    """W-MKT-1: stale over 25 h, paused, paused flag unreadable; valued at the last accepted."""
    script(agg(peer, registry, "AAPL"), tok(peer, registry, "AAPL"))
    _, assessed = read(peer, registry, last_accepted={"AAPL": 250_000_000})
    assert assessed.halted == {"AAPL": (halt,)}
    assert assessed.prices["AAPL"] == 250_000_000
    assert assessed.open  # one halted symbol does not close the market


def test_stale_boundary_from_the_peer(peer: JsonRpcPeer, registry: FeedRegistry) -> None:
    """W-MKT-1: a feed exactly 25 hours old is not yet halted."""
    agg(peer, registry, "AAPL").updated_at = T - 25 * 3600
    _, assessed = read(peer, registry)
    assert "AAPL" not in assessed.halted


def _three_paused(peer: JsonRpcPeer, registry: FeedRegistry) -> None:
    for s in SYMBOLS:
        tok(peer, registry, s).paused = True


def _all_old(peer: JsonRpcPeer, registry: FeedRegistry) -> None:
    for s in SYMBOLS:
        agg(peer, registry, s).updated_at = T - 3 * 3600 - 1


MARKET_CASES: list[tuple[str, Callable[[JsonRpcPeer, FeedRegistry], None], ClosedReason]] = [
    ("stale block", lambda p, r: setattr(p, "block_time", T - 301), ClosedReason.NODE_STALE),
    (
        "block error",
        lambda p, r: p.node_faults.__setitem__("eth_getBlockByNumber", PeerFault.ERROR),
        ClosedReason.NODE_UNREACHABLE,
    ),
    (
        "block hang",
        lambda p, r: p.node_faults.__setitem__("eth_getBlockByNumber", PeerFault.HANG),
        ClosedReason.NODE_UNREACHABLE,
    ),
    ("wrong chain", lambda p, r: setattr(p, "chain_id", 1), ClosedReason.NODE_UNREACHABLE),
    ("three halted", _three_paused, ClosedReason.TOO_MANY_HALTED),
    ("no update in 3 h", _all_old, ClosedReason.NO_RECENT_UPDATE),
]


@pytest.mark.parametrize(
    ("name", "script", "closed"), MARKET_CASES, ids=[c[0] for c in MARKET_CASES]
)
def test_market_status_from_the_peer(
    peer: JsonRpcPeer,
    registry: FeedRegistry,
    name: str,
    script: Callable[[JsonRpcPeer, FeedRegistry], None],
    closed: ClosedReason,
) -> None:
    """W-MKT-2: a node block over 5 minutes old, no node, >2 halted, nothing in 3 h: closed."""
    script(peer, registry)
    _, assessed = read(peer, registry)
    assert closed in assessed.closed, name
    assert not assessed.open
    assert assessed.status_text.startswith("Market closed")
    assert closed.value in assessed.status_text


def test_fresh_block_boundary_and_one_recent_feed(
    peer: JsonRpcPeer, registry: FeedRegistry
) -> None:
    """W-MKT-2: a block exactly 5 minutes old is fresh; one feed updated within 3 h suffices."""
    peer.block_time = T - 300
    _all_old(peer, registry)
    agg(peer, registry, "SPY").updated_at = T - 3 * 3600
    _, assessed = read(peer, registry)
    assert assessed.open


def test_node_gone(registry: FeedRegistry) -> None:
    """W-MKT-2: no node answering at all: closed, every read unreadable (W-PX-4)."""
    url = refusing_url()  # refused, and no other server can take the port meanwhile
    reading = asyncio.run(ChainlinkSource(registry, url, timeout_s=2.0).read(SYMBOLS, AT))
    assert reading.node_block_time is None
    assessed = assess_market(reading.readings, reading.decimals, AT, None, WeightsPreset())
    assert ClosedReason.NODE_UNREACHABLE in assessed.closed
    assert set(assessed.invalid.values()) == {PriceInvalid.UNREADABLE.value}


def test_symbol_without_feed_is_unreadable(peer: JsonRpcPeer, registry: FeedRegistry) -> None:
    """W-PX-4: a league symbol with no feed on record could not be read."""
    source = ChainlinkSource(registry, peer.url, timeout_s=2.0)
    reading = asyncio.run(source.read((*SYMBOLS, "NVDA"), AT))
    assert reading.readings["NVDA"].answer is None
    assert reading.readings["NVDA"].error == "no feed on record for this symbol"
    assert "NVDA" not in reading.decimals


def test_hold_from_the_peer_through_a_live_round(
    peer: JsonRpcPeer, registry: FeedRegistry, sqlite_url: str
) -> None:
    """W-HOLD-1, W-MKT-1, W-HOLD-2, W-RND-2: a 40% jump read from the node puts SPY on hold
    through the live round code; it stays halted until an operator releases it."""
    monday = AT.replace(hour=0)
    clock = ReplayClock(monday)
    _, agents, _ = build_agents(["eq=baseline:equal_weight"], gateway=object())  # type: ignore[arg-type]
    source = ChainlinkSource(registry, peer.url, timeout_s=30.0)  # nothing hangs: all answer
    with open_store(sqlite_url) as store:
        season = ops.create_season(
            store,
            clock,
            start=monday,
            symbols=list(SYMBOLS),
            decimals=registry.decimals,
            source=source.name,
            season_id="live",
        )
        ops.add_agent(
            store,
            clock,
            ops.load_season(store, season),
            name="eq",
            owner="0xowner",
            division=Division.PRO,
            spec="baseline:equal_weight",
            prompt="",
        )
        state = ops.load_season(store, season)
        agent = next(iter(state.agents))
        runtime = {agent: agents["eq"]}

        def play(hour: datetime) -> list[str]:
            peer.block_time = int(hour.timestamp()) - 5
            for s in SYMBOLS:
                agg(peer, registry, s).updated_at = int(hour.timestamp()) - 30
            clock.set(hour)
            before = dict(peer.calls)
            events = asyncio.run(
                play_round(ops.load_season(store, season), source, runtime, hour, LivePacing(clock))
            )
            store.append(events)
            assert peer.calls["eth_getBlockByNumber"] - before.get("eth_getBlockByNumber", 0) == 1
            return [e.kind for e in events]

        kinds = play(AT)
        assert EventKind.ROUND_STARTED in kinds
        assert EventKind.DECISION_MADE in kinds
        agg(peer, registry, "SPY").answer = ANSWERS["SPY"] * 14 // 10  # +40%
        kinds = play(AT + timedelta(hours=1))
        assert EventKind.PRICE_HELD in kinds
        state = ops.load_season(store, season)
        assert state.holds == {"SPY"}
        last = state.rounds[-1]
        assert last.halted == {"SPY": [HaltReason.HOLD.value]}
        assert last.prices["SPY"] == state.rounds[0].prices["SPY"]  # valued at the last accepted
        play(AT + timedelta(hours=2))
        assert ops.load_season(store, season).rounds[-1].halted == {"SPY": ["on_hold"]}
        ops.release_hold(store, clock, ops.load_season(store, season), "SPY", by="operator")
        play(AT + timedelta(hours=3))
        state = ops.load_season(store, season)
        assert state.rounds[-1].halted == {}
        jumped = Fraction(ANSWERS["SPY"] * 14 // 10, 10**8) * Fraction(105, 100) * MICRO
        assert state.rounds[-1].prices["SPY"] == int(jumped)  # the feed's price is used again
        released = [
            s.event for s in store.events(state.stream) if s.event.kind == EventKind.PRICE_RELEASED
        ]
        assert released[0].payload == {"symbol": "SPY", "by": "operator"}
        # C-4: reads, holds, releases and entries all match their payload schemas
        assert check_events((s.event for s in store.events(state.stream)), "weights") == []


def test_registry_files_toml_and_json(tmp_path: Path) -> None:
    """W-UNI-2: the feed registry is a file, TOML or JSON, read to the same registry."""
    lines = [f"chain_id = {CHAIN}", ""]
    for i, s in enumerate(SYMBOLS):
        lines += [
            f"[feeds.{s}]",
            f'aggregator = "{aggregator(i)}"',
            f'token = "{token(i)}"',
            "decimals = 8",
            "",
        ]
    (tmp_path / "feeds.toml").write_text("\n".join(lines), encoding="utf-8")
    (tmp_path / "feeds.json").write_text(json.dumps(REGISTRY_DATA), encoding="utf-8")
    from_toml = load_registry(tmp_path / "feeds.toml")
    from_json = load_registry(tmp_path / "feeds.json")
    assert from_toml.feeds == from_json.feeds
    assert from_toml.chain_id == CHAIN
    assert from_toml.multiplier_decimals == 18
    assert from_toml.decimals == dict.fromkeys(SYMBOLS, 8)
    assert from_toml.feeds["AAPL"].aggregator == "0x1111111111111111111111111111111111111111"


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"feeds": {"SPY": {"aggregator": "0x12", "decimals": 8}}}, "feeds.SPY.aggregator"),
        ({"feeds": {"SPY": {"aggregator": aggregator(0)}}}, "needs 'aggregator' and 'decimals'"),
        ({"feeds": {"SPY": {"aggregator": aggregator(0), "decimals": 8, "x": 1}}}, "unknown keys"),
        ({"feeds": {"SPY": {"aggregator": aggregator(0), "decimals": True}}}, "decimals"),
        ({"feeds": {}}, "'feeds' must map"),
        ({"feeds": {"spy!": {"aggregator": aggregator(0), "decimals": 8}}}, "symbol"),
    ],
)
def test_registry_errors_name_the_field(data: dict[str, object], fragment: str) -> None:
    """A wrong registry is refused with the field named, never half-loaded."""
    with pytest.raises(ConfigError, match=fragment.replace(".", r"\.").replace("(", r"\(")):
        parse_registry(data)


def _cli(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the CLI; return its exit code and its output, with a refusal's message."""
    from typer.testing import CliRunner

    from tradeleague.cli import app

    result = CliRunner().invoke(app, args, env=env)
    error = (
        ""
        if result.exception is None
        else f"\n{type(result.exception).__name__}: {result.exception}"
    )
    return result.exit_code, result.output + error


def _cli_season(
    peer: JsonRpcPeer, registry: FeedRegistry, tmp_path: Path, sqlite_url: str, now: datetime
) -> dict[str, str]:
    """Pin the CLI's clock at ``now``, make the peer fresh then, create season "cli" and a
    Pro and an Open agent; return the environment the commands run in."""
    peer.block_time = int(now.timestamp())
    for s in SYMBOLS:
        agg(peer, registry, s).updated_at = int(now.timestamp()) - 60
    (tmp_path / "feeds.json").write_text(json.dumps(REGISTRY_DATA), encoding="utf-8")
    env = {"TRADELEAGUE_RPC_URL": peer.url, "TRADELEAGUE_NOW": now.isoformat()}
    monday = (now - timedelta(days=now.weekday())).date().isoformat()
    feeds = ["--feeds", str(tmp_path / "feeds.json")]
    code, out = _cli(
        [
            "weights",
            "create-season",
            "--start",
            monday,
            *feeds,
            "--season",
            "cli",
            "--db",
            sqlite_url,
        ],
        env,
    )
    assert code == 0, out
    assert "clock pinned to" in out
    for name, division in (("eq", "pro"), ("house", "open")):
        code, out = _cli(
            [
                "weights",
                "add-agent",
                "--season",
                "cli",
                "--name",
                name,
                "--owner",
                f"w-{name}",
                "--spec",
                "baseline:equal_weight",
                "--division",
                division,
                "--db",
                sqlite_url,
            ],
            env,
        )
        assert code == 0, out
    return env


def _run_round(
    tmp_path: Path, sqlite_url: str, env: dict[str, str], *extra: str
) -> tuple[int, str]:
    return _cli(
        [
            "weights",
            "run-round",
            "--season",
            "cli",
            "--feeds",
            str(tmp_path / "feeds.json"),
            "--db",
            sqlite_url,
            *extra,
        ],
        env,
    )


def test_operator_cli_runs_a_live_round_on_the_peer(
    peer: JsonRpcPeer, registry: FeedRegistry, tmp_path: Path, sqlite_url: str
) -> None:
    """W-RND-1, W-RND-2, W-PX-2, W-SEA-1: an operator starts a season from a feed registry file
    and runs a round; with the clock pinned at 15:03 UTC on a Monday ($TRADELEAGUE_NOW, for
    tests and replays of an operator action) the round clock allows the 15:00 round without
    --force, whatever the real time; the prices are read from the node, once, and recorded."""
    env = _cli_season(peer, registry, tmp_path, sqlite_url, AT + timedelta(minutes=3))
    # create-season read the chain once to pick the universe; the round reads it once more
    before = peer.calls["eth_call:latestRoundData"]
    code, out = _run_round(tmp_path, sqlite_url, env)
    assert code == 0, out
    assert "round 2026-10-05T15:00:00+00:00: " in out
    assert "forced" not in out
    assert peer.calls["eth_call:latestRoundData"] - before == len(SYMBOLS)
    with open_store(sqlite_url) as store:
        state = ops.load_season(store, "cli")
        started = [
            s.event.payload
            for s in store.events("weights/cli")
            if s.event.kind == EventKind.ROUND_STARTED
        ]
    assert state.source == "chainlink:feeds"
    assert [(r.hour, r.forced) for r in state.rounds] == [(AT, False)]
    assert started[0]["forced"] is False
    assert state.rounds[0].prices["SPY"] == 682_629_629
    assert all(a.trades == len(SYMBOLS) for a in state.agents.values())  # Pro and Open played


def test_forced_round_stays_on_the_hour_and_is_marked(
    peer: JsonRpcPeer, registry: FeedRegistry, tmp_path: Path, sqlite_url: str
) -> None:
    """W-RND-1, W-SKP-2, W-DIV-1: --force runs a round outside the round clock, but it still
    belongs to its hour (at most one an hour) and is recorded as forced (RoundStarted, the
    report). Forced at 12:55, its Pro agent is 55 minutes into the hour and is skipped by the
    50-minute cut-off; the Open agent takes its turn, the day's first played round."""
    from tradeleague.league.weights.report import build_report

    env = _cli_season(peer, registry, tmp_path, sqlite_url, AT.replace(hour=12, minute=55))
    code, out = _run_round(tmp_path, sqlite_url, env)
    assert code != 0
    assert "no round starts now" in out
    code, out = _run_round(tmp_path, sqlite_url, env, "--force")
    assert code == 0, out
    assert "round 2026-10-05T12:00:00+00:00 (forced, outside the round clock)" in out
    code, out = _run_round(tmp_path, sqlite_url, env, "--force")
    assert code != 0
    assert "already recorded" in out
    with open_store(sqlite_url) as store:
        state = ops.load_season(store, "cli")
    assert [(r.hour, r.forced) for r in state.rounds] == [(AT.replace(hour=12), True)]
    by_name = {a.name: a for a in state.agents.values()}
    pro, house = by_name["eq"], by_name["house"]
    assert [(e.kind.value, e.reason_code) for e in pro.entries] == [
        ("skipped", "not_asked_in_time")
    ]
    assert [e.kind.value for e in house.entries] == ["decision"]
    assert build_report(state)["rounds"][0]["forced"] is True


@pytest.mark.parametrize("bad", ["2026-10-05T15:03:00", "tomorrow"])
def test_pinned_clock_must_be_a_utc_time(bad: str, sqlite_url: str) -> None:
    """C-11: a pinned operator clock is an ISO 8601 time with an offset, never guessed."""
    code, out = _cli(
        ["weights", "pause", "--season", "cli", "--agent", "x", "--db", sqlite_url, "--now", bad],
        {},
    )
    assert code != 0
    assert "--now/$TRADELEAGUE_NOW" in out
