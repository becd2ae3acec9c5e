"""A thesis season over frozen folders, resumable (T-SEA-1, C-1).

``run_season`` opens (or resumes) the stream ``thesis/<season id>``, then plays
one cycle a day at 16:00 UTC in ``[start, end)`` with ``play_cycle``, each
cycle's events appended in one transaction; after the last cycle the monitor
runs on to ``end`` (exclusive) and the season ends. Interrupted, the store holds
whole cycles only; the same command skips them and goes on. Event ids are
derived from their place in the stream (``Store.deriving_ids``), so the same
replay, whole or resumed, ends on the same chain head.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta

from tradeleague.agents.base import Agent
from tradeleague.agents.thesis import skip_played
from tradeleague.clock import ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import PROMPT_VERSION, SCORING_VERSION, ThesisPreset
from tradeleague.league.pacing import ReplayPacing
from tradeleague.league.thesis.cycle import CycleConfig, Entrant, monitor_events, play_cycle
from tradeleague.league.thesis.state import SeasonState
from tradeleague.store import Store

__all__ = ["cycle_times", "replay_season_id", "run_season"]


def replay_season_id(start: date, end: date) -> str:
    """Return the default id of a replayed season: the same days give the same id."""
    return f"replay-{start}-{end}"


def cycle_times(start: date, end: date, preset: ThesisPreset) -> list[int]:
    """Return every cycle instant (epoch seconds) in ``[start, end)``.

    Raises
    ------
    ConfigError
        If the range is empty or longer than a season (T-SEA-1).
    """
    days = (end - start).days
    if days < 1:
        raise ConfigError(f"the end {end} must come after the start {start}")
    if days > preset.season_days:
        raise ConfigError(f"a season lasts at most {preset.season_days} days, not {days}")
    return [
        int(datetime.combine(start + timedelta(days=i), time(preset.cycle_hour), UTC).timestamp())
        for i in range(days)
    ]


async def _fast_forward(state: SeasonState, agents: Mapping[str, Agent]) -> None:
    """Move scripted agents past the answers a resumed season already played."""
    for name, agent in agents.items():
        if name in state.agents:
            await skip_played(agent, state.agents[name].attempts)


async def run_season(
    store: Store,
    tape: MarketTape,
    entrants: Sequence[Entrant],
    agents: Mapping[str, Agent],
    *,
    season_id: str,
    start: date,
    end: date,
    sources: Mapping[str, str],
    preset: ThesisPreset | None = None,
    config: CycleConfig | None = None,
    on_cycle: Callable[[int, int], None] | None = None,
) -> SeasonState:
    """Replay (or resume) season ``season_id`` and return its final state.

    Raises
    ------
    ConfigError
        If the range is not a season, or a resumed season's roster differs.
    """
    preset = preset or ThesisPreset()
    config = config or CycleConfig()
    store = store.deriving_ids()  # same replay, same events, same chain head (C-1)
    stream = tev.season_stream(season_id)
    times = cycle_times(start, end, preset)
    end_s = int(datetime.combine(end, time(0), UTC).timestamp())
    state = SeasonState.from_events((s.event for s in store.events(stream)), preset)
    begin = datetime.combine(start, time(0), UTC)
    if not state.started:
        opening = Event(
            stream,
            EventKind.SEASON_STARTED,
            {
                "format": tev.FORMAT,
                "season": season_id,
                "start": utc_iso(begin),
                "end": utc_iso(datetime.combine(end, time(0), UTC)),
                "crypto": list(tape.universe.crypto),
                "stocks": list(tape.universe.stocks),
                "benchmarks": list(tape.universe.benchmarks),
                "sources": dict(sources),
                "replay": True,
                "start_cash": str(int(preset.start_cash)),
                "scoring_version": SCORING_VERSION,
                "prompt_version": PROMPT_VERSION,
            },
            begin,
        )
        store.append([opening])
        state.apply(opening)
    recorded = sorted(state.agents)
    expected = sorted(e.name for e in entrants if e.enters <= state.last_index)
    if recorded != expected:
        raise ConfigError(
            f"season {season_id} was recorded with agents {recorded}; "
            "resume it with the same roster"
        )
    await _fast_forward(state, agents)
    clock = ReplayClock(begin)
    pacing = ReplayPacing(clock)
    for index, moment in enumerate(times):
        if utc_iso(datetime.fromtimestamp(moment, UTC)) not in state.cycles:
            clock.set(max(datetime.fromtimestamp(moment, UTC), clock.now()))
            events = await play_cycle(
                state, tape, agents, entrants, moment, index, pacing, preset, config
            )
            store.append(events)
            for e in events:
                state.apply(e)
        if on_cycle is not None:
            on_cycle(index, len(times))
    if not state.ended:
        books = {n: a.book for n, a in state.agents.items()}
        tail = monitor_events(state, tape, books, stream, times[-1], end_s - 1, preset)
        tail.append(
            Event(
                stream,
                EventKind.SEASON_ENDED,
                {"season": season_id, "end": utc_iso(datetime.fromtimestamp(end_s, UTC))},
                datetime.fromtimestamp(end_s, UTC),
            )
        )
        store.append(tail)
        for e in tail:
            state.apply(e)
    return state
