"""A direction round in flight and the log its events wait in (SPEC D-RND, C-4).

Rounds may overlap live (a round settles while the next one opens), so every
round keeps its own event buffer and the season it opened in. A round's
events reach the store as they are flushed: live after every step, in replay
once the round finishes, so a replay that stops loudly leaves no half-written
round behind.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tradeleague.clock import Clock
from tradeleague.events import Event, EventKind
from tradeleague.formats.direction.timing import RoundTimes
from tradeleague.money import Usd
from tradeleague.store import Store

__all__ = ["OpenRound", "QueuedCall", "RoundLog"]


@dataclass(frozen=True, slots=True)
class QueuedCall:
    """A visitor's call read from the store, waiting to be placed on its round.

    ``name`` is the account (``visitor:NAME``), ``at`` when the site took the
    call, ``call_id`` the id of its ``VisitorCalled`` event.
    """

    name: str
    direction: str
    at: datetime
    call_id: str


@dataclass(slots=True)
class OpenRound:
    """One round in flight: its times, season, entry, trades and unwritten events.

    ``trades`` maps each placed trade id to its agent; ``visitors`` queues the
    visitor calls not yet placed, ``called`` names every visitor account taken
    on the round and ``visitors_seq`` is how far its visitors stream was read;
    ``pending`` buffers events not yet written; ``placing`` holds the
    placement tasks still running.
    """

    times: RoundTimes
    season: str
    ask_at: datetime | None = None
    entry: Usd | None = None
    started: bool = False
    written: bool = False
    trades: dict[str, str] = field(default_factory=dict)
    visitors: list[QueuedCall] = field(default_factory=list)
    called: set[str] = field(default_factory=set)
    visitors_seq: int = 0
    pending: list[Event] = field(default_factory=list)
    placing: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def round_id(self) -> str:
        """Return the round's id."""
        return self.times.round_id

    @property
    def asked(self) -> datetime:
        """Return the moment the models were asked.

        Raises
        ------
        RuntimeError
            If the round has not asked yet.
        """
        if self.ask_at is None:
            raise RuntimeError(f"round {self.round_id} has not asked yet")
        return self.ask_at

    @property
    def price(self) -> Usd:
        """Return the round's entry price.

        Raises
        ------
        RuntimeError
            If the round has no entry price.
        """
        if self.entry is None:
            raise RuntimeError(f"round {self.round_id} has no entry price")
        return self.entry


class RoundLog:
    """Write an arena's events: season events at once, round events through a buffer.

    Parameters
    ----------
    store
        Where the events go.
    stream
        The arena's event stream.
    clock
        Stamps every event.
    """

    def __init__(self, store: Store, stream: str, clock: Clock) -> None:
        self.store = store
        self.stream = stream
        self.clock = clock

    def record(self, season: str | None, kind: str, payload: dict[str, Any]) -> None:
        """Append a season-level event at once (no round buffer holds it)."""
        body = {"season": season, **payload}
        self.store.append([Event(self.stream, kind, body, self.clock.now())])

    def emit(self, live: OpenRound, kind: str, payload: dict[str, Any]) -> None:
        """Buffer an event of ``live`` (stamped now, written on the next flush)."""
        body = {"season": live.season, **payload}
        live.pending.append(Event(self.stream, kind, body, self.clock.now()))

    def flush(self, live: OpenRound) -> None:
        """Write the buffered events of ``live`` as one append."""
        if live.pending:
            self.store.append(live.pending)
            live.pending = []
            live.written = True

    def skip(self, live: OpenRound, name: str, reason: str, detail: str, **extra: Any) -> None:
        """Buffer a ``TurnSkipped`` of ``name`` (D-SKP-1) with its detail and extra fields."""
        payload = {"round": live.round_id, "agent": name, "reason": reason, "detail": detail}
        self.emit(live, EventKind.TURN_SKIPPED, payload | extra)
