"""Visitors' own calls, from the site to the arena through the store (SPEC D-PUB-1, D-PUB-2).

The site (``tradeleague serve``) and the host (``tradeleague run``) may be two
processes; they share only the store, so the hand-off goes through it:

- **The site writes** ``VisitorCalled`` into the round's visitors stream
  (``events.direction.visitors_stream``), one call per normalised name per
  round: `record_call` checks the time (D-RND-4) and appends with
  `Store.append_checked`, which locks the chain while it looks for the
  name, so two equal calls at once leave one. The visitors stream is not the
  arena's: the host holds the arena's stream as its only writer, and no
  process claims a visitors stream, so any number of site processes may write
  it. `VisitorDesk` is the site's whole path: the name, the round open on the
  clock, the arena's record (it must be playing that round), the time, the
  append.
- **The arena reads** the round's visitors stream while the round takes calls
  (`Visitors.collect`: live, after each model's answer and then every poll
  until the calls have closed; in replay, once, since the record already
  holds every call), and places each call like a model's answer: logged
  (``VisitorCallLogged``, naming the call's event), decided at its recorded
  moment (``late`` by the models' rule), traded, settled with the round.

A visitor's account (``visitor:NAME``) is opened at the season's starting
balance on its first call of the season; its calls are ranked apart from the
models. The name is user text: the public payloads show it as plain text
(C-10, ``tradeleague.formats.direction.publish.shown``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime, timedelta

from tradeleague.accounts.anonymous import claim_name
from tradeleague.broker.base import Broker
from tradeleague.clock import Clock
from tradeleague.events import Event
from tradeleague.events.direction import VISITOR_CALLED, visitors_stream
from tradeleague.formats.direction.answer import Answer
from tradeleague.formats.direction.ledger import VISITOR_CALL_LOGGED, Entrant, Ledger
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.timing import RoundTimes
from tradeleague.formats.direction.visitors import (
    VISITOR_PREFIX,
    CallRefused,
    Refusal,
    VisitorCall,
    call_round,
    check_in_time,
    check_playing,
    visitor_name,
)
from tradeleague.league.direction.round_state import OpenRound, QueuedCall, RoundLog
from tradeleague.league.direction.trades import TradeDesk
from tradeleague.store import Store
from tradeleague.store.chain import StoredEvent

__all__ = ["VISITOR_PREFIX", "VisitorDesk", "Visitors", "record_call"]

_log = logging.getLogger(__name__)


def record_call(
    store: Store,
    *,
    stream: str,
    times: RoundTimes,
    preset: DirectionPreset,
    visitor: str,
    direction: str,
    at: datetime,
) -> VisitorCall:
    """Record ``visitor``'s call on the round of ``times`` in its visitors stream.

    Raises
    ------
    CallRefused
        ``invalid_name``, ``invalid_direction``, ``late`` (D-RND-4),
        ``no_open_round`` (before the open), ``already_called`` (this name
        called this round already; checked with the chain locked).
    """
    name = visitor_name(visitor)
    if direction not in ("up", "down"):
        raise CallRefused(Refusal.INVALID_DIRECTION, "A call is exactly 'up' or 'down'.")
    check_in_time(times, at, preset)
    call = VisitorCall(times.round_id, name, direction, at)
    where = visitors_stream(stream, times.round_id)

    def once(read: Callable[[str], list[StoredEvent]]) -> None:
        for stored in read(where):
            if stored.event.kind == VISITOR_CALLED and stored.event.payload.get("visitor") == name:
                raise CallRefused(
                    Refusal.ALREADY_CALLED, f"{name} has already called round {times.round_id}."
                )

    store.append_checked([Event(where, VISITOR_CALLED, call.to_payload(), at)], once)
    return call


class VisitorDesk:
    """The site's side: take a visitor's call on the round the arena is playing now.

    Parameters
    ----------
    store
        The store the arena's host writes (the calls go to its visitors streams).
    stream
        The arena's stream.
    preset
        The arena's rules (its round grid and late cutoff).
    clock
        The site's clock: a call's moment.
    ledger
        The arena's record, caught up with the log, held while the caller reads it.
    """

    def __init__(
        self,
        store: Store,
        *,
        stream: str,
        preset: DirectionPreset,
        clock: Clock,
        ledger: Callable[[], AbstractContextManager[Ledger]],
    ) -> None:
        self.store = store
        self.stream = stream
        self.preset = preset
        self.clock = clock
        self._ledger = ledger

    def open_round(self, now: datetime | None = None) -> RoundTimes:
        """Return the round that takes calls at ``now`` (default: the clock's now).

        Raises
        ------
        CallRefused
            ``no_open_round`` (the arena is not playing it, or it has
            finished) or ``late`` (D-RND-4).
        """
        at = now or self.clock.now()
        times = call_round(at, self.preset)
        with self._ledger() as ledger:
            check_playing(ledger, times, self.preset)
        check_in_time(times, at, self.preset)
        return times

    def call(self, visitor: str, direction: str, holder: str) -> VisitorCall:
        """Record ``visitor``'s call on the open round (D-PUB-2), now, for ``holder``.

        ``holder`` names who calls (``api.write_limits.visitor_holder``): a name
        belongs to the holder who first called under it.

        Raises
        ------
        CallRefused
            With the reason (see `record_call` and `open_round`), or
            ``name_taken`` (another visitor first called under this name).
        """
        name = visitor_name(visitor)
        if direction not in ("up", "down"):
            raise CallRefused(Refusal.INVALID_DIRECTION, "A call is exactly 'up' or 'down'.")
        now = self.clock.now()
        times = self.open_round(now)
        if not claim_name(self.store, name, holder, now):
            raise CallRefused(
                Refusal.NAME_TAKEN,
                f"The name {name} belongs to the visitor who first called under it; "
                "call from that browser, or choose another name.",
            )
        return record_call(
            self.store,
            stream=self.stream,
            times=times,
            preset=self.preset,
            visitor=name,
            direction=direction,
            at=now,
        )


class Visitors:
    """The arena's side: a season's visitors, and their calls read from the store.

    Parameters
    ----------
    log
        Where the round's events go (its store and stream name the visitors streams).
    broker
        Where the visitors' accounts are opened.
    preset
        The arena's rules (the starting balance).
    """

    def __init__(self, *, log: RoundLog, broker: Broker, preset: DirectionPreset) -> None:
        self.log = log
        self.broker = broker
        self.preset = preset
        self.entrants: dict[str, Entrant] = {}

    def reset(self) -> None:
        """Forget the season's visitors (a new season opens their accounts afresh)."""
        self.entrants = {}

    def names(self) -> list[str]:
        """Return the account names of the season's visitors, in order of first call."""
        return list(self.entrants)

    def _read(self, live: OpenRound) -> Iterator[StoredEvent]:
        stream = visitors_stream(self.log.stream, live.round_id)
        yield from self.log.store.events(stream, after_seq=live.visitors_seq)

    def collect(self, live: OpenRound) -> None:
        """Queue the calls on ``live`` recorded since the last read, one per visitor."""
        for stored in self._read(live):
            live.visitors_seq = stored.seq
            if stored.event.kind != VISITOR_CALLED:
                continue
            call = VisitorCall.from_payload(stored.event.payload)
            if call is None or call.round != live.round_id:
                _log.warning("ignored a malformed visitor call %s", stored.event.id)
                continue
            if call.account in live.called:
                continue  # one call per name per round: the first recorded stands
            live.called.add(call.account)
            live.visitors.append(QueuedCall(call.account, call.direction, call.at, stored.event.id))

    async def place(self, live: OpenRound, desk: TradeDesk) -> None:
        """Log and place every call queued on ``live`` (D-PUB-2), opening new accounts.

        A call is decided at its recorded moment (never before the ask), so
        the models' late rule (D-RND-4) judges it exactly as the site did.
        """
        queued, live.visitors = live.visitors, []
        for call in queued:
            if call.name not in self.entrants:
                self.entrants[call.name] = Entrant(
                    name=call.name, provider="visitor", tier="visitor", model="human",
                    kind="visitor",
                )  # fmt: skip
                await self.broker.open_account(call.name, self.preset.start_balance)
            entrant = self.entrants[call.name]
            self.log.emit(
                live,
                VISITOR_CALL_LOGGED,
                {
                    "round": live.round_id,
                    "agent": call.name,
                    "entrant": entrant.to_payload(),
                    "call": call.call_id,
                },
            )
            at = max(call.at, live.asked)
            latency = int((at - live.asked) / timedelta(milliseconds=1))
            answer = Answer(direction="up" if call.direction == "up" else "down", rationale="")
            await desk.decide(live, call.name, answer, at, latency, text=None)
