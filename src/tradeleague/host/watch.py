"""What the host watches in each round it plays, so an operator sees agents and feeds (issue 25).

- Every recorded model call goes to ``/metrics`` by format, agent, provider
  and outcome, with its latency (``host/metrics.py`` bounds the labels).
- An agent's faults in a season (its turns that ended without a valid
  answer: refused by validation, skipped, or its provider failed) are counted
  from the round's events (``league.answers.turn_ends``); when the count
  passes a threshold (``FAULT_THRESHOLDS``: 5, then each double) the host logs
  one warning naming the agent, the season and the most common causes: once
  per threshold crossed, never every round. A host that starts again counts
  the season's earlier turns first, so it warns of no threshold twice.
- A feed that goes stale or cannot be read (what the format's ``host`` part
  finds in the round's events, ``HostPart.feed_faults``) is warned of in the
  round it goes so, and said to be fresh again when it is; not every round.
- The seasons it played, per format, for the boards a run prints when it ends.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from tradeleague.agents.recorded import call_record_of
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.host.metrics import Metrics
from tradeleague.host.plugin import Driver
from tradeleague.league.answers import DECISION, turn_ends
from tradeleague.llm.records import RecordFormatError
from tradeleague.plugin import get
from tradeleague.store import Store

__all__ = ["FAULT_THRESHOLDS", "Watch", "crossed", "round_season"]

FIRST_THRESHOLD: Final = 5
"""An agent's first warning: its fifth turn without a valid answer in a season."""
FAULT_THRESHOLDS: Final = "5, 10, 20, 40, ... (each the double of the one before)"
"""The fault counts the host warns at, in words (see `crossed`)."""

_log = logging.getLogger("tradeleague.host")


def crossed(before: int, after: int) -> int | None:
    """Return the highest threshold in ``(before, after]`` (5, 10, 20, ...), or ``None``."""
    threshold, found = FIRST_THRESHOLD, None
    while threshold <= after:
        if threshold > before:
            found = threshold
        threshold *= 2
    return found


def round_season(events: Sequence[Event], fallback: str) -> str:
    """Return the season the round's events are stamped with, else ``fallback``.

    A format whose seasons share one stream stamps each event with its season
    (the arena); elsewhere the stream is the season and ``fallback`` names it.
    """
    for event in events:
        season = event.payload.get("season")
        if isinstance(season, str) and season:
            return season
    return fallback


@dataclass(slots=True)
class _Season:
    """One season's faults so far: per agent, and per agent and cause."""

    faults: Counter[str] = field(default_factory=Counter)
    causes: dict[str, Counter[str]] = field(default_factory=dict)

    def count(self, events: Iterable[Event]) -> dict[str, int]:
        """Add the turns in ``events`` that ended without a valid answer.

        Returns each agent that had one and its count before ``events``.
        """
        before: dict[str, int] = {}
        for end in turn_ends(events):
            if end.ending == DECISION:
                continue
            before.setdefault(end.agent, self.faults[end.agent])
            self.faults[end.agent] += 1
            self.causes.setdefault(end.agent, Counter())[end.reason or "unknown"] += 1
        return before

    def top_causes(self, agent: str) -> str:
        """Return the agent's most common causes in words, e.g. ``not_in_format 4, timeout 1``."""
        mine = self.causes.get(agent, Counter())
        return ", ".join(f"{cause} {n}" for cause, n in mine.most_common(3))


class Watch:
    """The host's eyes on the rounds it plays (see the module docstring)."""

    def __init__(self, store: Store, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics
        self.played: dict[str, list[str]] = {}
        """Per format, the seasons (as its driver names them) a slot was played in, in order."""
        self._seasons: dict[tuple[str, str], _Season] = {}
        self._stale: dict[str, set[str]] = {}
        self._seen: dict[str, int] = {}

    def read_back(self, stream: str, after_seq: int) -> list[Event]:
        """Return what a round wrote to ``stream`` after ``after_seq`` and no round took yet.

        A format that appends as it goes (the arena) returns no events from
        ``play``; live, its rounds overlap, so what one round reads back may hold
        the next one's first events: each event is taken in once, by the first
        round that reads it.
        """
        start = max(after_seq, self._seen.get(stream, 0))
        stored = list(self.store.events(stream, after_seq=start))
        if stored:
            self._seen[stream] = stored[-1].seq
        return [s.event for s in stored]

    def round(
        self, driver: Driver, slot: datetime, events: Sequence[Event], seq_before: int
    ) -> None:
        """Take in the round ``driver`` played at ``slot`` (``events``, after ``seq_before``)."""
        fmt = driver.fmt
        where = driver.season_of(slot)
        seasons = self.played.setdefault(fmt, [])
        if where not in seasons:
            seasons.append(where)
        self.metrics.played(fmt)
        self._calls(fmt, events)
        season = round_season(events, where)
        self._faults(driver, season, events, seq_before)
        self._feeds(fmt, season, slot, events)

    def _calls(self, fmt: str, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind != EventKind.MODEL_CALLED:
                continue
            try:
                record = call_record_of(event.payload)
            except RecordFormatError:
                continue
            latency = record.latency_ms / 1000 if record.latency_ms >= 0 else None
            self.metrics.call(fmt, record.key.agent, record.provider, record.outcome.value, latency)

    def _earlier(self, stream: str, season: str, seq_before: int) -> Iterator[Event]:
        """Yield ``season``'s events of ``stream`` recorded before this round."""
        for stored in self.store.events(stream):
            if stored.seq > seq_before:
                return
            if stored.event.payload.get("season", season) == season:
                yield stored.event

    def _faults(
        self, driver: Driver, season: str, events: Sequence[Event], seq_before: int
    ) -> None:
        key = (driver.fmt, season)
        state = self._seasons.get(key)
        if state is None:  # first round this host plays of the season: count what came before
            state = self._seasons[key] = _Season()
            state.count(self._earlier(driver.stream, season, seq_before))
        before = state.count(events)
        for agent, was in sorted(before.items()):
            now = state.faults[agent]
            threshold = crossed(was, now)
            if threshold is None:
                continue
            _log.warning(
                "agent faults passed a threshold",
                extra={
                    "format": driver.fmt,
                    "season": season,
                    "agent": agent,
                    "faults": now,
                    "threshold": threshold,
                    "causes": state.top_causes(agent),
                    "next_threshold": threshold * 2,
                },
            )

    def _feeds(self, fmt: str, season: str, slot: datetime, events: Sequence[Event]) -> None:
        found = get(fmt).part("host").feed_faults(events)
        if found is None:  # the round says nothing of its feeds (a closed market)
            return
        faults = set(found)
        before = self._stale.get(fmt, set())
        for feed in sorted(faults - before):
            _log.warning(
                "feed stale or unreadable",
                extra={"format": fmt, "season": season, "slot": utc_iso(slot), "feed": feed},
            )
        for feed in sorted(before - faults):
            _log.info(
                "feed fresh again",
                extra={"format": fmt, "season": season, "slot": utc_iso(slot), "feed": feed},
            )
        self._stale[fmt] = faults
