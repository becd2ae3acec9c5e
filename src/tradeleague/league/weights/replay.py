"""A weights season over frozen bars, with a replay clock and the live round code.

``run_season`` opens (or resumes) a season stream, then plays each round hour
in order with ``play_round``, appending each round's events in one
transaction. Interrupted (Ctrl-C), the database holds whole rounds only; run
the same command again and the rounds already recorded are skipped.

Round hours: every trading day of the bars in ``[start, end)``, at the preset's
hours 15:00..19:00 UTC for intraday bars, or one round at the first hour for
daily bars (W-RND-1, W-DIV-1).

Recorded answers (C-5): ``recorded_answers`` reads a recorded season's
``ModelCalled`` events back for a ``ReplayGateway``, so the same season can be
re-run with the answers it got, no model called. A season's call keys hold its
id, so the re-run must use the same season id (see ``replay_season_id``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from tradeleague.agents.base import Agent, resume_agent
from tradeleague.agents.recorded import NotACallRecord, calls_in
from tradeleague.clock import ReplayClock
from tradeleague.collect import collecting_less
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind
from tradeleague.events import weights as ev
from tradeleague.feeds import FrozenBarsSource, PriceSource
from tradeleague.formats.weights import (
    Division,
    EntryKind,
    SkipCode,
    WeightsPreset,
    round_hours_on,
)
from tradeleague.league.check import AgentCheck, CheckPacing, judge_turns
from tradeleague.league.mask import mask_mismatch
from tradeleague.league.pacing import ReplayPacing
from tradeleague.league.weights.round import RoundConfig, play_round
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.universe import universe_event
from tradeleague.llm.replay import RecordedAnswers
from tradeleague.market.mask import draw_mask
from tradeleague.store import Store
from tradeleague.store.portfolio import account_opened

__all__ = [
    "RosterEntry",
    "check_first_round",
    "opening_events",
    "recorded_answers",
    "replay_hours",
    "replay_season_id",
    "resume_agents",
    "run_season",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class RosterEntry:
    """One agent of a replayed season: id (its name), spec, division, owner and prompt."""

    name: str
    spec: str
    division: Division
    owner: str | None = None
    prompt: str = ""


def replay_season_id(label: str, start: date, end: date, division: Division) -> str:
    """Return the default id of a replayed season: ``replay-<bars>-<start>-<end>-<division>``.

    The same bars, days and division give the same id, so the same command
    resumes a season, and ``--replay-answers`` finds the calls it recorded.
    """
    return f"replay-{label}-{start}-{end}-{division.value}"


def recorded_answers(store: Store, season_id: str) -> RecordedAnswers:
    """Return the model answers recorded for season ``season_id`` in ``store`` (C-5).

    Each ``ModelCalled`` event of the season's stream holds one call record,
    read by `tradeleague.agents.recorded.calls_in` in any of its shapes; its
    call key names the season, round hour, agent and turn.

    Raises
    ------
    ConfigError
        If ``store`` holds no season ``season_id``, or an event is not a call record.
    """
    stream = ev.season_stream(season_id)
    events = list(store.events(stream))
    try:
        records = calls_in(events, season=season_id)
    except NotACallRecord as exc:
        raise ConfigError(f"event {exc.seq} of {stream}: not a call record: {exc.reason}") from None
    if not any(s.event.kind == EventKind.SEASON_STARTED for s in events):
        raise ConfigError(
            f"the answers' database holds no weights season {season_id!r}; replay with the "
            "season id it was recorded under (--season, or the same bars, days and division)"
        )
    try:
        return RecordedAnswers(records)
    except ValueError as exc:
        raise ConfigError(f"season {season_id!r}: {exc}") from None


def replay_hours(
    source: FrozenBarsSource, start: date, end: date, preset: WeightsPreset
) -> list[datetime]:
    """Return the round hours of a replay over ``[start, end)`` (see the module docstring)."""
    dataset = source.dataset
    days: set[date] = set()
    for symbol in dataset.symbols:
        for seconds in dataset[symbol].times.tolist():
            day = datetime.fromtimestamp(int(seconds), UTC).date()
            if start <= day < end and dataset.calendar.is_trading_day(day):
                days.add(day)
    daily = dataset.bar_size >= timedelta(days=1)
    out: list[datetime] = []
    for day in sorted(days):
        hours = round_hours_on(day, preset)
        out.extend(hours[:1] if daily else hours)
    return out


def _opening(
    stream: str,
    season_id: str,
    source: PriceSource,
    roster: Sequence[RosterEntry],
    start: datetime,
    end: datetime,
    preset: WeightsPreset,
    *,
    universe: Mapping[str, object] | None = None,
    symbols: Sequence[str] | None = None,
    decimals: Mapping[str, int] | None = None,
    replay: bool = True,
    mask: bool = False,
) -> list[Event]:
    """Return the events that open a season.

    ``SeasonStarted``, then the universe when it was read from the chain
    (``UniverseChosen``, W-UNI-1), then with ``mask`` the season's mask table
    (``MaskDrawn``, drawn from the season id), then each agent and its account. The
    season's symbols are ``universe``'s, else ``symbols``, else the bars' (a
    ``FrozenBarsSource``); their decimals are ``decimals``, else the bars' six.
    """
    if universe is not None:
        chosen = [str(s) for s in universe["symbols"]]  # type: ignore[attr-defined]
    elif symbols is not None:
        chosen = list(symbols)
    elif isinstance(source, FrozenBarsSource):
        chosen = list(source.dataset.symbols)
    else:
        raise ConfigError("a season over live feeds needs its symbols")
    places = {s: (6 if decimals is None else decimals[s]) for s in chosen}
    events = [
        ev.event(
            stream,
            EventKind.SEASON_STARTED,
            {
                "format": "weights",
                "season": season_id,
                "start": ev.iso(start),
                "end": ev.iso(end),
                "symbols": chosen,
                "decimals": places,
                "source": source.name,
                "synthetic": source.synthetic,
                "replay": replay,
                "start_cash": str(int(preset.start_cash)),
                "scoring_version": preset.scoring_version,
                "prompt_version": preset.prompt_version,
            },
            start,
        )
    ]
    if universe is not None:
        events.append(universe_event(stream, universe, start))
    if mask:
        table = draw_mask(season_id, chosen, start.date())
        events.append(ev.event(stream, EventKind.MASK_DRAWN, table.to_payload(), start))
    for entry in roster:
        payload = {
            "agent": entry.name,
            "name": entry.name,
            "owner": entry.owner or entry.name,
            "division": entry.division.value,
            "spec": entry.spec,
            "prompt": entry.prompt,
        }
        events.append(ev.event(stream, ev.AGENT_CREATED, payload, start))
        events.append(account_opened(stream, entry.name, preset.start_cash, start))
    return events


def _resume_agents(state: SeasonState, agents: Mapping[str, Agent]) -> None:
    """Resume every agent after the turns a resumed season already played (exact resume).

    A turn counts when the agent was asked: every entry but a skip before
    asking (a ``league_fault`` skip comes after the agent was asked).
    """
    for agent_id, agent in agents.items():
        if agent_id in state.agents:
            asked = sum(
                e.kind is not EntryKind.SKIPPED or e.reason_code == SkipCode.LEAGUE_FAULT.value
                for e in state.agents[agent_id].entries
            )
            resume_agent(agent, asked)


opening_events = _opening
"""The events that open a replayed season (the host opens its seasons with them too)."""
resume_agents = _resume_agents
"""Resume every agent after the turns a season already played (the host's restart too)."""


@collecting_less
async def run_season(
    store: Store,
    source: FrozenBarsSource,
    roster: Sequence[RosterEntry],
    agents: Mapping[str, Agent],
    *,
    season_id: str,
    start: date,
    end: date,
    preset: WeightsPreset | None = None,
    config: RoundConfig | None = None,
    on_round: Callable[[int, int, datetime], None] | None = None,
    universe: Mapping[str, object] | None = None,
    mask: bool = False,
) -> SeasonState:
    """Replay (or resume) season ``season_id`` over ``source`` and return its final state.

    Parameters
    ----------
    store
        Where events go; a season already in it is resumed. Event ids are derived
        from their place in the season (`Store.deriving_ids`).
    source
        The frozen bars.
    roster, agents
        The agents and their runtime objects, by name.
    season_id
        The season's id (its stream is ``weights/<id>``).
    start, end
        The first day and the day after the last.
    preset, config
        The rules and the call parameters.
    on_round
        Called after each round with (index, total, hour), played or skipped.
    universe
        A universe recorded from the chain (a ``UniverseChosen`` payload, taken
        from a recorded season), recorded again in this season's opening; the
        season's symbols are then its symbols (the bars must hold them).
    mask
        Play a masked season (`tradeleague.market.mask`): agents see pseudonyms,
        day numbers and scaled prices; the table is drawn from ``season_id``.

    Raises
    ------
    ConfigError
        If no round hour falls in range, or a resumed season's roster or mask differs.
    """
    preset = preset or WeightsPreset()
    store = store.deriving_ids()  # same replay, same events, same chain head (C-1)
    stream = ev.season_stream(season_id)
    store.claim(stream)  # before any read or call: a held season is refused first
    hours = replay_hours(source, start, end, preset)
    if not hours:
        raise ConfigError(f"no trading day with bars between {start} and {end}")
    season_start = datetime.combine(start, time(0), tzinfo=UTC)
    season_end = datetime.combine(end, time(0), tzinfo=UTC)
    state = SeasonState.from_events(stream, (s.event for s in store.events(stream)), preset)
    if not state.started:
        opening = _opening(
            stream, season_id, source, roster, season_start, season_end, preset,
            universe=universe, mask=mask,
        )  # fmt: skip
        # the state folds the events as stored: their payloads, decoded once there, are
        # what the refresh that follows a replay reads back
        for s in store.append(opening):
            state.apply(s.event)
    elif sorted(state.agents) != sorted(r.name for r in roster):
        raise ConfigError(
            f"season {season_id} was recorded with agents {sorted(state.agents)}; "
            "resume it with the same roster"
        )
    elif (state.mask is not None) != mask:
        raise ConfigError(mask_mismatch(season_id, state.mask is not None))
    _resume_agents(state, agents)
    clock = ReplayClock(season_start)
    pacing = ReplayPacing(clock)
    for index, hour in enumerate(hours):
        if not state.recorded(hour):
            clock.set(max(hour, clock.now()))
            events = await play_round(state, source, agents, hour, pacing, config)
            for s in store.append(events):
                state.apply(s.event)
        if on_round is not None:
            on_round(index, len(hours), hour)
    return state


async def check_first_round(
    source: FrozenBarsSource,
    roster: Sequence[RosterEntry],
    agents: Mapping[str, Agent],
    *,
    season_id: str,
    start: date,
    end: date,
    preset: WeightsPreset | None = None,
    config: RoundConfig | None = None,
    universe: Mapping[str, object] | None = None,
    mask: bool = False,
) -> list[AgentCheck]:
    """Play the season's first round in memory and return each model agent's check.

    The round is the real one (its prompt, schema and call parameters), played
    on a fresh season with ``CheckPacing``; nothing is recorded.

    Raises
    ------
    ConfigError
        If no round hour falls in range.
    """
    preset = preset or WeightsPreset()
    hours = replay_hours(source, start, end, preset)
    if not hours:
        raise ConfigError(f"no trading day with bars between {start} and {end}")
    stream = ev.season_stream(season_id)
    season_start = datetime.combine(start, time(0), tzinfo=UTC)
    season_end = datetime.combine(end, time(0), tzinfo=UTC)
    opening = _opening(
        stream, season_id, source, roster, season_start, season_end, preset,
        universe=universe, mask=mask,
    )  # fmt: skip
    state = SeasonState.from_events(stream, opening, preset)
    pacing = CheckPacing(ReplayClock(hours[0]))
    events = await play_round(state, source, agents, hours[0], pacing, config)
    return judge_turns(pacing, events)
