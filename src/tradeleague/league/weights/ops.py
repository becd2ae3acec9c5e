"""Operator and owner actions on a weights season, each one event (W-HOLD-2, W-REC, W-VAL-9).

Every action checks the rules against the season's state folded from its
events, then appends exactly one fact: a season started, an agent created
(with its account), a hold released (who, when), a prompt or key changed, an
agent paused or resumed. A refused action raises ``ConfigError`` with the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind
from tradeleague.events import weights as ev
from tradeleague.formats.weights import (
    Division,
    WeightsPreset,
    join_refusal,
    prompt_change_refusal,
    season_window,
)
from tradeleague.ids import new_id, resolve_name
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import universe_event
from tradeleague.store import Store, StoredEvent
from tradeleague.store.portfolio import account_opened

__all__ = [
    "add_agent",
    "agent_id",
    "change_key",
    "change_prompt",
    "create_season",
    "load_season",
    "pause_agent",
    "release_hold",
    "resume_agent",
]


def load_season(store: Store, season_id: str, preset: WeightsPreset | None = None) -> SeasonState:
    """Return the state of ``season_id`` folded from the store.

    Raises
    ------
    ConfigError
        If the season has no events.
    """
    stream = ev.season_stream(season_id)
    state = SeasonState.from_events(stream, (s.event for s in store.events(stream)), preset)
    if not state.started:
        raise ConfigError(f"there is no weights season {season_id!r}")
    return state


def create_season(
    store: Store,
    clock: Clock,
    *,
    start: datetime,
    symbols: list[str],
    decimals: dict[str, int],
    source: str,
    season_id: str | None = None,
    preset: WeightsPreset | None = None,
    universe: Mapping[str, object] | None = None,
) -> str:
    """Start a season on a Monday 00:00 UTC (W-SEA-1) and return its id.

    ``universe``, for a season whose symbols were read from the chain, is the
    ``UniverseChosen`` payload they came from (W-UNI-1): it is recorded beside
    ``SeasonStarted`` in the same transaction.
    """
    preset = preset or WeightsPreset()
    window = season_window(start, preset)
    season_id = season_id or new_id()
    stream = ev.season_stream(season_id)
    if store.count(stream):
        raise ConfigError(f"season {season_id} already exists")
    payload = {
        "format": "weights",
        "season": season_id,
        "start": ev.iso(window.start),
        "end": ev.iso(window.end),
        "symbols": sorted(symbols),
        "decimals": {s: decimals[s] for s in sorted(symbols)},
        "source": source,
        "synthetic": False,
        "replay": False,
        "start_cash": str(int(preset.start_cash)),
        "scoring_version": preset.scoring_version,
        "prompt_version": preset.prompt_version,
    }
    at = clock.now()
    started = [Event(stream, EventKind.SEASON_STARTED, payload, at)]
    if universe is not None:
        started.append(universe_event(stream, {**universe, "season": season_id}, at))
    store.append(started)
    return season_id


def add_agent(
    store: Store,
    clock: Clock,
    state: SeasonState,
    *,
    name: str,
    owner: str,
    division: Division,
    spec: str,
    prompt: str,
    key_last4: str | None = None,
) -> str:
    """Create an agent with its 10,000 account (W-PF-1, W-SEA-1) and return its id.

    Raises
    ------
    ConfigError
        If no season runs, the owner already has an agent, or the division is full.
    """
    now = clock.now()
    owners = {a.owner for a in state.agents.values()}
    size = sum(a.division is division for a in state.agents.values())
    refusal = join_refusal(owner, division, now, state.window, owners, size, state.preset)
    if refusal is not None:
        raise ConfigError(refusal)
    agent = new_id()
    created = Event(
        state.stream,
        ev.AGENT_CREATED,
        {
            "agent": agent,
            "name": name,
            "owner": owner,
            "division": division.value,
            "spec": spec,
            "prompt": prompt,
            "key_last4": key_last4,
        },
        now,
    )
    store.append([created, account_opened(state.stream, agent, state.preset.start_cash, now)])
    return agent


def _append(
    store: Store, state: SeasonState, kind: str, payload: dict[str, object], at: datetime
) -> None:
    store.append([Event(state.stream, kind, payload, at)])


def release_hold(store: Store, clock: Clock, state: SeasonState, symbol: str, by: str) -> None:
    """Release the hold on ``symbol``, recording who and when (W-HOLD-2)."""
    if symbol not in state.holds:
        raise ConfigError(f"{symbol} is not on hold; on hold: {sorted(state.holds) or 'none'}")
    _append(store, state, EventKind.PRICE_RELEASED, {"symbol": symbol, "by": by}, clock.now())


def agent_id(state: SeasonState, ref: str) -> str:
    """Return the id of the agent ``ref`` names: its id or its name (`resolve_name`).

    Raises
    ------
    ConfigError
        No agent of the season has that id or name.
    ServiceError
        409 ``ambiguous_name``: several agents have that name.
    """
    found = resolve_name(ref, ((k, a.name) for k, a in state.agents.items()), "agent")
    if found is None:
        raise ConfigError(f"no agent {ref!r} in season {state.season_id}")
    return found


def change_prompt(store: Store, clock: Clock, state: SeasonState, agent: str, prompt: str) -> None:
    """Change an agent's prompt, at most three times a day, from the next round (W-REC-2)."""
    agent = agent_id(state, agent)
    now = clock.now()

    def check(read: Callable[..., list[StoredEvent]]) -> None:
        # counted from the log with every other append held off, so two servers
        # (or two requests) changing the prompt at once cannot both pass a stale count
        made = read(state.stream, kinds=frozenset({ev.PROMPT_CHANGED}))
        changes = [s.event.occurred_at for s in made if s.event.payload.get("agent") == agent]
        refusal = prompt_change_refusal(changes, now, state.preset)
        if refusal is not None:
            raise ConfigError(refusal)

    event = Event(state.stream, ev.PROMPT_CHANGED, {"agent": agent, "prompt": prompt}, now)
    store.append_checked([event], check)


def change_key(store: Store, clock: Clock, state: SeasonState, agent: str, last4: str) -> None:
    """Record that an owner changed the key; only its last four characters (C-9)."""
    agent = agent_id(state, agent)
    _append(store, state, ev.KEY_CHANGED, {"agent": agent, "last4": last4[-4:]}, clock.now())


def pause_agent(store: Store, clock: Clock, state: SeasonState, agent: str, reason: str) -> None:
    """Pause an agent (an operator's action; W-VAL-9 pauses record the same fact)."""
    agent = agent_id(state, agent)
    _append(store, state, ev.AGENT_PAUSED, {"agent": agent, "reason": reason}, clock.now())


def resume_agent(store: Store, clock: Clock, state: SeasonState, agent: str) -> None:
    """Resume a paused agent; it is skipped for a round whose prices were already read."""
    agent = agent_id(state, agent)
    if not state.agents[agent].paused:
        raise ConfigError(f"agent {agent} is not paused")
    _append(store, state, ev.AGENT_RESUMED, {"agent": agent}, clock.now())
