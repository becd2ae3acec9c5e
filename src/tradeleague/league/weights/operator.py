"""What the operator's ``tradeleague weights`` commands do, once their options are parsed.

`new_season` picks a season's symbols (the chain's pick through a feed
registry, named by hand, or every file of frozen bars) and records it;
`round_now` plays the round the clock allows now. Each recorded step is one of
`ops`'s events.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.feeds import FrozenBarsSource, PriceSource
from tradeleague.formats.weights import round_slot
from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.league.pacing import LivePacing
from tradeleague.league.weights import ops
from tradeleague.league.weights.agents import build_agents, owner_key_readers
from tradeleague.league.weights.replay import resume_agents
from tradeleague.league.weights.round import play_round
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import read_universe
from tradeleague.market import load_dataset
from tradeleague.store import open_store

if TYPE_CHECKING:
    from tradeleague.feeds.registry import FeedRegistry

__all__ = ["new_season", "round_now"]


def _chain_universe(
    registry: FeedRegistry, rpc_url: str | None, season: str, clock: Clock
) -> dict[str, Any]:
    """Read the universe of ``registry`` from the node at ``rpc_url`` now."""
    if not rpc_url:
        raise ConfigError(
            "--feeds needs --rpc-url or $TRADELEAGUE_RPC_URL to read the universe from the "
            "chain (or name the symbols with --symbols)"
        )
    return asyncio.run(
        read_universe(registry, rpc_url, season=season, at=clock.now(), preset=WeightsPreset())
    )


def new_season(
    clock: Clock,
    *,
    day: date,
    db: str | None,
    market: Path | None = None,
    feeds: Path | None = None,
    rpc_url: str | None = None,
    symbols: str | None = None,
    season: str | None = None,
) -> str:
    """Record a new 28-day season starting on Monday ``day``; return its id.

    Raises
    ------
    ConfigError
        No --feeds nor --market, a symbol with no feed, a day that is no
        Monday, or a universe that cannot be read.
    """
    # SPEC: W-SEA-1 (a season starts on a Monday 00:00 UTC).
    names = [s.strip() for s in symbols.split(",") if s.strip()] if symbols else None
    universe: dict[str, Any] | None = None
    if feeds is not None:
        from tradeleague.feeds.registry import load_registry  # eth_utils: slow to import

        registry = load_registry(feeds)
        if names is None:  # SPEC: W-UNI-1, W-UNI-2 (the chain's pick, recorded)
            universe = _chain_universe(registry, rpc_url, season or "new", clock)
            names = list(universe["symbols"])
        chosen = names
        missing = sorted(set(chosen) - set(registry.feeds))
        if missing:
            raise ConfigError(f"no feed on record in {feeds} for {missing}")
        decimals = {s: registry.feeds[s].decimals for s in chosen}
        source_name = f"chainlink:{registry.name}"
    elif market is not None:
        dataset = load_dataset(market, symbols=names)
        chosen = list(dataset.symbols)
        decimals = dict.fromkeys(chosen, 6)
        source_name = str(market)
    else:
        raise ConfigError("give --feeds (live Chainlink prices) or --market (frozen bars)")
    if day.weekday() != 0:
        raise ConfigError(
            f"--start {day.isoformat()} is a {day.strftime('%A')}: a season starts on a Monday, "
            f"e.g. {(day + timedelta(days=(7 - day.weekday()) % 7)).isoformat()}"
        )
    with open_store(db) as store:
        return ops.create_season(
            store,
            clock,
            start=datetime.combine(day, datetime.min.time(), tzinfo=UTC),
            symbols=chosen,
            decimals=decimals,
            source=source_name,
            season_id=season,
            universe=universe,
        )


def _round_source(
    state: SeasonState, market: Path | None, feeds: Path | None, rpc_url: str | None
) -> PriceSource:
    bars = (
        None
        if market is None
        else FrozenBarsSource(load_dataset(market, symbols=list(state.symbols)))
    )
    if feeds is not None:
        if not rpc_url:
            raise ConfigError("--feeds needs --rpc-url or $TRADELEAGUE_RPC_URL")
        # web3 is slow to import: only a live price source pays for it.
        from tradeleague.feeds.chainlink import ChainlinkSource
        from tradeleague.feeds.registry import load_registry

        return ChainlinkSource(load_registry(feeds), rpc_url, history=bars)
    if bars is None:
        raise ConfigError("give --feeds with --rpc-url (live) or --market (frozen bars)")
    return bars


def round_now(
    clock: Clock,
    *,
    season: str,
    db: str | None,
    market: Path | None = None,
    feeds: Path | None = None,
    rpc_url: str | None = None,
    force: bool = False,
) -> str:
    """Play and record the round the round clock allows now; return the line that says so.

    Raises
    ------
    ConfigError
        No round starts now (unless ``force``), the round is recorded already,
        the season is not running, or no price source is given.
    """
    # SPEC: W-RND-1 (the round clock), W-SKP-2 (the cut-off), W-DIV-1 (the Open round).
    with open_store(db, upgrade=False) as store:
        state = ops.load_season(store, season)
        moment = clock.now()
        slot = round_slot(moment, state.preset)
        if slot is None and not force:
            raise ConfigError(
                "no round starts now: rounds start 15:00-19:00 UTC, first ten minutes"
            )
        forced = slot is None
        hour = slot or moment.replace(minute=0, second=0, microsecond=0)
        if state.recorded(hour):
            raise ConfigError(f"the round of {hour.isoformat()} is already recorded")
        if state.window is None or not state.window.running(moment):
            raise ConfigError("the season is not running")  # W-SEA-2
        source = _round_source(state, market, feeds, rpc_url)
        specs = [f"{a.agent}={a.spec}" for a in state.agents.values()]
        _, agents, gateway = build_agents(
            specs, season=state.season_id, api_keys=owner_key_readers(store, state)
        )
        # the agents are built afresh each round: a coin flip or a script goes on where
        # the record says it stopped, not from its first draw or line
        resume_agents(state, agents)

        async def go() -> list[object]:
            try:
                return list(
                    await play_round(state, source, agents, hour, LivePacing(clock), forced=forced)
                )
            finally:
                if gateway is not None:
                    await gateway.aclose()

        events = asyncio.run(go())
        store.append(events)  # type: ignore[arg-type]
    note = " (forced, outside the round clock)" if forced else ""
    return f"round {hour.isoformat()}{note}: {len(events)} events recorded"
