"""A thesis season over frozen folders, resumable (T-SEA-1, C-1).

``run_season`` opens (or resumes) the stream ``thesis/<season id>`` as a
``ThesisSeason``, then plays one cycle a day at 16:00 UTC in ``[start, end)``,
each cycle's events appended in one transaction; after the last cycle the
monitor runs on to the season's last check before ``end`` (exclusive) and the
season ends. Interrupted, the store holds whole cycles only; the same command
skips them and goes on. Event ids are derived from their place in the stream
(``Store.deriving_ids``), so the same replay, whole or resumed, ends on the
same chain head. The host's thesis driver plays the same ``ThesisSeason`` one
slot at a time.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from tradeleague.agents.base import Agent
from tradeleague.clock import ReplayClock
from tradeleague.collect import collecting_less
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.league.check import AgentCheck, CheckPacing, judge_turns
from tradeleague.league.pacing import ReplayPacing
from tradeleague.league.thesis.cycle import CycleConfig, Entrant
from tradeleague.league.thesis.season import ThesisSeason, cycle_times
from tradeleague.league.thesis.state import SeasonState
from tradeleague.store import Store, open_store

__all__ = ["check_first_cycle", "cycle_times", "replay_season_id", "run_season"]


def replay_season_id(start: date, end: date) -> str:
    """Return the default id of a replayed season: the same days give the same id."""
    return f"replay-{start}-{end}"


def _season(
    store: Store,
    tape: MarketTape,
    entrants: Sequence[Entrant],
    agents: Mapping[str, Agent],
    season_id: str,
    days: tuple[date, date],
    sources: Mapping[str, str],
    preset: ThesisPreset | None,
    config: CycleConfig | None,
    mask: bool = False,
) -> ThesisSeason:
    """Return the replayed season ``season_id`` over ``days`` in ``store``, not yet taken up."""
    return ThesisSeason(
        store, tape.universe, entrants, agents, season_id=season_id, start=days[0],
        end=days[1], sources=sources, replay=True, preset=preset or ThesisPreset(),
        config=config or CycleConfig(), mask=mask,
    )  # fmt: skip


@collecting_less
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
    mask: bool = False,
) -> SeasonState:
    """Replay (or resume) season ``season_id`` and return its final state.

    ``mask`` plays a masked season (`tradeleague.market.mask`).

    Raises
    ------
    ConfigError
        If the range is not a season, or a resumed season's roster or mask differs.
    """
    store.claim(tev.season_stream(season_id))  # before any read or call
    # same replay, same events, same chain head (C-1)
    season = _season(store.deriving_ids(), tape, entrants, agents, season_id, (start, end),
                     sources, preset, config, mask)  # fmt: skip
    await season.take_up()
    clock = ReplayClock(datetime.fromtimestamp(season.begin_s, UTC))
    pacing = ReplayPacing(clock)
    for index, moment in enumerate(season.times):
        if not season.recorded(moment):
            clock.set(max(datetime.fromtimestamp(moment, UTC), clock.now()))
            await season.play(tape, moment, pacing)
        if on_cycle is not None:
            on_cycle(index, len(season.times))
    if not season.ended:
        season.close(tape)
    return season.state


async def check_first_cycle(
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
    mask: bool = False,
) -> list[AgentCheck]:
    """Play the season's first cycle on a scratch store and return each model agent's check.

    The cycle is the real one (its picture, prompt and call parameters), played
    with ``CheckPacing`` into a temporary database that is thrown away.

    Raises
    ------
    ConfigError
        If the range is not a season.
    """
    with (
        tempfile.TemporaryDirectory() as folder,
        open_store(f"sqlite:///{Path(folder) / 'check.db'}") as scratch,
    ):
        season = _season(scratch, tape, entrants, agents, season_id, (start, end), sources,
                         preset, config, mask)  # fmt: skip
        await season.take_up()
        pacing = CheckPacing(ReplayClock(datetime.fromtimestamp(season.begin_s, UTC)))
        first = season.times[0]
        await season.play(tape, first, pacing)
        events = [stored.event for stored in scratch.events()]
    return judge_turns(pacing, events)
