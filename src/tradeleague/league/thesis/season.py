"""A thesis season in a store, played cycle by cycle: one object for the replay and the host.

``ThesisSeason`` opens the stream ``thesis/<season id>`` (or takes it up from
its events, checking the roster), then plays a cycle at an instant with
``play_cycle`` over whatever tape it is handed (frozen folders, or live feeds)
and appends the cycle's events in one transaction; ``close`` runs the monitor
from the last cycle to the season's last check and ends the season.
``replay.run_season`` plays every cycle in a row; the host's thesis driver
plays one slot at a time on its schedule. Both build the season the same way,
so a replay-clock host writes the replay's events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime

from tradeleague.agents.base import Agent
from tradeleague.agents.thesis import skip_played
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.calendar import close_instant, cycle_times, season_bounds
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import PROMPT_VERSION, SCORING_VERSION, ThesisPreset
from tradeleague.formats.thesis.universe import Universe
from tradeleague.league.mask import mask_mismatch
from tradeleague.league.pacing import Pacing
from tradeleague.league.thesis.cycle import CycleConfig, Entrant, monitor_events, play_cycle
from tradeleague.league.thesis.state import SeasonState
from tradeleague.market.mask import draw_mask
from tradeleague.store import Store

__all__ = ["ThesisSeason", "cycle_times", "season_bounds"]


def _at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


class ThesisSeason:
    """One season's record and how to go on with it.

    Parameters
    ----------
    store
        The store (a replay passes ``store.deriving_ids()``).
    universe
        The season's symbols.
    entrants, agents
        The roster (`league/thesis/agents.build_roster`).
    season_id, start, end
        The season and its days, ``end`` exclusive.
    sources
        Where the prices come from, recorded in ``SeasonStarted``.
    replay
        Whether the season is played over history.
    mask
        Mask the season (`tradeleague.market.mask`): its table, drawn from the
        season id, is recorded right after ``SeasonStarted``.

    Raises
    ------
    ConfigError
        If the days are no season, or a recorded season had another roster or mask.
    """

    def __init__(
        self,
        store: Store,
        universe: Universe,
        entrants: Sequence[Entrant],
        agents: Mapping[str, Agent],
        *,
        season_id: str,
        start: date,
        end: date,
        sources: Mapping[str, str],
        replay: bool,
        preset: ThesisPreset,
        config: CycleConfig,
        mask: bool = False,
    ) -> None:
        self.store = store
        self.entrants = list(entrants)
        self.agents = dict(agents)
        self.season_id = season_id
        self.preset = preset
        self.config = config
        self.stream = tev.season_stream(season_id)
        self.times = cycle_times(start, end, preset)
        self.begin_s, self.end_s = season_bounds(start, end)
        self.close_at = close_instant(end, preset)
        """The season's last monitor check: its close is played then (T-MON-1)."""
        self._taken_up = False
        self.state = SeasonState.from_events((s.event for s in store.events(self.stream)), preset)
        if not self.state.started:
            opening = Event(
                self.stream,
                EventKind.SEASON_STARTED,
                {
                    "format": tev.FORMAT,
                    "season": season_id,
                    "start": utc_iso(_at(self.begin_s)),
                    "end": utc_iso(_at(self.end_s)),
                    "crypto": list(universe.crypto),
                    "stocks": list(universe.stocks),
                    "benchmarks": list(universe.benchmarks),
                    "sources": dict(sources),
                    "replay": replay,
                    "start_cash": str(int(preset.start_cash)),
                    "scoring_version": SCORING_VERSION,
                    "prompt_version": PROMPT_VERSION,
                },
                _at(self.begin_s),
            )
            opened = [opening]
            if mask:
                table = draw_mask(season_id, universe.all_symbols, start)
                opened.append(
                    Event(self.stream, EventKind.MASK_DRAWN, table.to_payload(), _at(self.begin_s))
                )
            store.append(opened)
            for e in opened:
                self.state.apply(e)
        elif (self.state.mask is not None) != mask:
            raise ConfigError(mask_mismatch(season_id, self.state.mask is not None))
        recorded = sorted(self.state.agents)
        expected = sorted(e.name for e in self.entrants if e.enters <= self.state.last_index)
        if recorded != expected:
            raise ConfigError(
                f"season {season_id} was recorded with agents {recorded}; "
                "resume it with the same roster"
            )

    async def take_up(self) -> None:
        """Move scripted agents past the answers the recorded season already played (once)."""
        if self._taken_up:
            return
        self._taken_up = True
        for name, agent in self.agents.items():
            if name in self.state.agents:
                await skip_played(agent, self.state.agents[name].attempts)

    def recorded(self, moment: int) -> bool:
        """Return whether the cycle at ``moment`` (epoch seconds) is in the record."""
        return utc_iso(_at(moment)) in self.state.cycles

    @property
    def ended(self) -> bool:
        """Return whether the season's close is in the record."""
        return self.state.ended

    def _append(self, events: list[Event]) -> list[Event]:
        self.store.append(events)
        for e in events:
            self.state.apply(e)
        return events

    async def play(self, tape: MarketTape, moment: int, pacing: Pacing) -> list[Event]:
        """Play the cycle at ``moment`` over ``tape`` and append its events in one transaction.

        Raises
        ------
        ConfigError
            If ``moment`` is not one of the season's cycles.
        """
        if moment not in self.times:
            raise ConfigError(f"{utc_iso(_at(moment))} is no cycle of season {self.season_id}")
        await self.take_up()
        events = await play_cycle(
            self.state,
            tape,
            self.agents,
            self.entrants,
            moment,
            self.times.index(moment),
            pacing,
            self.preset,
            self.config,
        )
        return self._append(events)

    def close(self, tape: MarketTape) -> list[Event]:
        """Run the monitor from the last cycle to the season's end, then end the season."""
        books = {n: a.book for n, a in self.state.agents.items()}
        last = self.times[-1]
        tail = monitor_events(
            self.state, tape, books, self.stream, last, self.end_s - 1, self.preset
        )
        tail.append(
            Event(
                self.stream,
                EventKind.SEASON_ENDED,
                {"season": self.season_id, "end": utc_iso(_at(self.end_s))},
                _at(self.close_at),
            )
        )
        return self._append(tail)
