"""The toy as the host plays it: ``[toy]`` in the league file, its driver, status and report.

[toy]
season = "t1"
seed = 7
days = 5
[[toy.agents]]
name = "first"
spec = "first"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.table import Table

from tradeleague.clock import Clock, ReplayClock
from tradeleague.events import Event, utc_iso
from tradeleague.host.leaguefile import Check, HostAgent
from tradeleague.host.plugin import Driver
from tradeleague.league.check import AgentCheck
from tradeleague.league.pacing import LivePacing, Pacing, ReplayPacing
from tradeleague.llm.token_prices import PriceTable
from tradeleague.store import Store

from .season import KEY, ToySeason, report, tape

__all__ = ["HOST", "ToyConfig", "ToyDriver", "ToyHost"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToyConfig:
    """The toy's table: its season, the tape's seed and length, the roster."""

    season: str
    seed: int
    days: int
    agents: tuple[HostAgent, ...]

    KEYS: ClassVar[frozenset[str]] = frozenset({"season", "seed", "days", "agents"})

    @classmethod
    def parse(cls, data: object, check: Check) -> ToyConfig | None:
        """Return ``[toy]`` checked, or None with its mistakes noted in ``check``."""
        table = check.is_table(data, KEY)
        if table is None:
            return None
        check.table(table, KEY, set(cls.KEYS))
        season = check.name(table, KEY, "season")
        seed, days = table.get("seed", 0), table.get("days", 5)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            check.bad(KEY, "seed", "seed is a whole number, 0 or more")
        if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 365:
            check.bad(KEY, "days", "days is a whole number, 1 to 365")
        agents = check.agents(table, KEY)
        if season is None or not isinstance(seed, int) or not isinstance(days, int):
            return None
        return cls(season=season, seed=seed, days=days, agents=agents)


class ToyDriver:
    """Plays a toy season one round a slot (``host.plugin.Driver``)."""

    fmt = KEY

    def __init__(self, store: Store, config: ToyConfig, clock: Clock | None) -> None:
        roster = {a.name: a.spec for a in config.agents}
        self._season = ToySeason(store, config.season, roster, tape(config.seed, config.days))
        self.season = config.season
        self.stream = self._season.stream
        self.since: datetime | None = None if clock is None else clock.now()
        self._pacing: Pacing = (
            ReplayPacing(ReplayClock(self._season.times[0])) if clock is None else LivePacing(clock)
        )

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """Return the rounds' instants in ``[start, end)``."""
        return [t for t in self._season.times if start <= t < end]

    def season_of(self, slot: datetime) -> str:
        """Return the season: the toy plays one."""
        return self.season

    def played(self, slot: datetime) -> bool:
        """Return whether the round at ``slot`` is recorded."""
        return self._season.round_id(slot) in self._season.state().rounds

    async def play(self, slot: datetime) -> list[Event]:
        """Play the round at ``slot``; after the last one, close the season."""
        events = await self._season.play(slot, self._pacing)
        if slot == self._season.times[-1]:
            self._season.close()
        return events

    async def aclose(self) -> None:
        """Nothing to release."""


class ToyHost:
    """The toy's ``host`` part (``host.plugin.HostPart[ToyConfig]``)."""

    def parse(self, data: object, check: Check) -> ToyConfig | None:
        """Return ``[toy]`` checked."""
        return ToyConfig.parse(data, check)

    def driver(
        self,
        store: Store,
        config: ToyConfig,
        *,
        clock: Clock | None,
        span: tuple[datetime, datetime] | None,
        prices: PriceTable | None = None,
    ) -> Driver:
        """Return the season's driver."""
        return ToyDriver(store, config, clock)

    def status(
        self, store: Store, config: ToyConfig | None, streams: Sequence[str], now: datetime
    ) -> list[dict[str, Any]]:
        """Return the league file's season: its last and next round."""
        if config is None:
            return []
        roster = {a.name: a.spec for a in config.agents}
        season = ToySeason(store, config.season, roster, tape(config.seed, config.days))
        done = season.state().rounds
        upcoming = [t for t in season.times if utc_iso(t) not in done and t >= now]
        return [
            {
                "format": KEY,
                "season": config.season,
                "last_slot": done[-1] if done else None,
                "next_slot": utc_iso(upcoming[0]) if upcoming else None,
                "missed": [],
                "paused": [],
                "feeds": {"kind": "synthetic"},
            }
        ]

    def status_lines(self, entry: Mapping[str, Any]) -> list[str]:
        """Return nothing more than the summary line."""
        return []

    def report(
        self,
        store: Store,
        season: str,
        config: ToyConfig | None,
        *,
        stream: str | None,
        prices: PriceTable | None = None,
    ) -> dict[str, Any] | None:
        """Return the season's REPORT.json, as ``tradeleague replay toy`` writes it.

        The toy's agents call no model, so there is nothing for ``prices`` to price.
        """
        return report(store, season)

    def boards(self, store: Store, season: str, config: ToyConfig | None) -> list[RenderableType]:
        """Return the season's board: rank, agent, return."""
        payload = report(store, season)
        if payload is None:
            return []
        table = Table(title=f"Toy season {season}")
        for column in ("rank", "agent", "return"):
            table.add_column(column)
        for row in payload["board"]:
            table.add_row(str(row["rank"]), row["agent"], f"{row['return_ppm'] / 10_000:+.2f}%")
        return [table]

    async def check(self, config: ToyConfig) -> list[AgentCheck] | None:
        """Return no check: the toy's agents call no model."""
        return []

    def feed_faults(self, events: Sequence[Event]) -> list[str] | None:
        """Return no fault: the toy's tape is synthetic."""
        return []


HOST = ToyHost()
