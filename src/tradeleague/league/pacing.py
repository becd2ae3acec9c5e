"""How time passes in a round, live or replayed: the one difference between the two (C-11).

A round's logic is one code path in every format; only these things differ
between live play and replay, and they live here:

* **The ask.** Live, the call goes out at once. A replay may delay it after
  the open (``ask_lag``): a feed or a scheduler that was late.
* **Answers.** Every agent is asked through ``turns.take_turn`` (one hard
  deadline, faults contained). Live, each result is handed on the moment it
  arrives (``asyncio.as_completed``). In replay every agent answers at once
  with the latency it *would* have taken (recorded, or simulated); the results
  are handed on in order of ``latency``, ties by ask order, so a format that
  moves the replay clock to each answer's moment sees exactly what it would
  have seen live.
* **Outside input** that arrives while a round runs (the arena's visitors'
  calls, recorded by another process). Live, it is read again every poll
  until the round stops taking it (``polls``). In replay the record already
  holds all of it: it is read once, and the clock does not move.
* **Closes** (formats that trade through a broker). Live, the broker is polled
  from expiry until every trade has closed or the grace has passed. In replay
  it is asked once, at expiry, and a close stamped after the grace counts as
  missing.

A format chooses nothing else: the weights league, the direction arena and
any new format take a ``Pacing`` and call it the same way live and in replay.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from tradeleague.agents.base import Agent, Turn, answers_at_once
from tradeleague.broker.base import Broker, CloseEvent
from tradeleague.clock import Clock, ReplayClock
from tradeleague.league.turns import TakenTurn, TurnFault, take_turn

__all__ = ["LivePacing", "Pacing", "ReplayPacing"]


class Pacing(Protocol):
    """The things that differ between live play and replay (see the module notes)."""

    live: bool
    """Whether events are appended as they happen (live) or per round (replay)."""

    @property
    def clock(self) -> Clock:
        """Return the clock the rounds run on."""
        ...

    async def ask(self, open_at: datetime) -> None:
        """Wait until the round's calls may go out (replay: apply the ask lag)."""
        ...

    def turns(
        self, asks: Sequence[tuple[Agent, Turn]], limit: timedelta
    ) -> AsyncGenerator[TakenTurn, None]:
        """Ask every agent under the hard deadline ``limit``; yield each turn as it ends."""
        ...

    def polls(self, until: datetime, every: timedelta) -> AsyncIterator[None]:
        """Yield each time outside input should be read, the last time at ``until``."""
        ...

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Return the close events reported by ``deadline``."""
        ...


async def _taken(index: int, agent: Agent, turn: Turn, limit_s: float) -> TakenTurn:
    got = await take_turn(agent, turn, limit_s)
    if isinstance(got, TurnFault):
        return TakenTurn(index, fault=got)
    return TakenTurn(index, reply=got)


async def _cancel(tasks: Sequence[asyncio.Task[TakenTurn]]) -> None:
    """Cancel the tasks still running and wait until they have stopped."""
    running = [t for t in tasks if not t.done()]
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


def _start(asks: Sequence[tuple[Agent, Turn]], limit: timedelta) -> list[asyncio.Task[TakenTurn]]:
    seconds = limit.total_seconds()
    return [
        asyncio.ensure_future(_taken(i, agent, turn, seconds))
        for i, (agent, turn) in enumerate(asks)
    ]


class ReplayPacing:
    """Replay: turns handed on in latency order (see the module notes).

    Parameters
    ----------
    clock
        The replay clock the rounds run on.
    ask_lag
        How long after the open the calls go out, per round open (default none).
    """

    live = False

    def __init__(
        self, clock: ReplayClock, ask_lag: Callable[[datetime], timedelta] | None = None
    ) -> None:
        self._clock = clock
        self._lag = ask_lag

    @property
    def clock(self) -> ReplayClock:
        """Return the replay clock."""
        return self._clock

    async def ask(self, open_at: datetime) -> None:
        """Move the clock to the open plus its lag."""
        lag = self._lag(open_at) if self._lag is not None else timedelta(0)
        await self._clock.sleep_until(open_at + lag)

    async def turns(
        self, asks: Sequence[tuple[Agent, Turn]], limit: timedelta
    ) -> AsyncGenerator[TakenTurn, None]:
        """Take every turn, then yield them in ``(latency, index)`` order.

        If one turn raises (``ReplayMissed``), the others are cancelled before
        the error propagates.
        """
        # Baselines, scripts and models answering from a record never wait on
        # anything: they are asked here, in this task, one after another, with no
        # task of their own; the others get a task each, started first so they
        # run whenever this one waits. The order turns are handed on is the same
        # either way: by latency, then roster place.
        seconds = limit.total_seconds()
        at_once = [answers_at_once(agent) for agent, _ in asks]
        inline = [i for i, now in enumerate(at_once) if now]
        tasked = [i for i, now in enumerate(at_once) if not now]
        tasks = [asyncio.ensure_future(_taken(i, asks[i][0], asks[i][1], seconds)) for i in tasked]
        try:
            got = [await _taken(i, asks[i][0], asks[i][1], seconds) for i in inline]
            got += await asyncio.gather(*tasks)
        finally:
            await _cancel(tasks)
        for taken in sorted(got, key=lambda t: (t.latency_ms, t.index)):
            yield taken

    async def polls(self, until: datetime, every: timedelta) -> AsyncIterator[None]:
        """Yield once, at once: the record holds every input (the clock stays where it is)."""
        yield

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Ask the broker once at expiry; keep the closes stamped by ``deadline``."""
        await self._clock.sleep_until(expiry)
        return [c for c in await broker.closes(trade_ids) if c.closed_at <= deadline]


class LivePacing:
    """Live: turns handed on as they end; closes polled until the grace ends.

    Parameters
    ----------
    clock
        The wall clock (or any clock that runs by itself).
    poll
        How often the broker is asked for closes after expiry.
    """

    live = True

    def __init__(self, clock: Clock, poll: timedelta = timedelta(seconds=1)) -> None:
        self._clock = clock
        self._poll = poll

    @property
    def clock(self) -> Clock:
        """Return the clock."""
        return self._clock

    async def ask(self, open_at: datetime) -> None:
        """Go at once: the ask lag is whatever fetching the round's data took."""
        await self._clock.sleep_until(open_at)

    async def turns(
        self, asks: Sequence[tuple[Agent, Turn]], limit: timedelta
    ) -> AsyncGenerator[TakenTurn, None]:
        """Yield each turn as it ends; one still unanswered at ``limit`` is a timeout.

        When the consumer stops early (an error in the round, the generator
        closed), every turn still outstanding is cancelled.
        """
        tasks = _start(asks, limit)
        try:
            for done in asyncio.as_completed(tasks):
                yield await done
        finally:
            await _cancel(tasks)

    async def polls(self, until: datetime, every: timedelta) -> AsyncIterator[None]:
        """Yield now, then every ``every`` until ``until``, the last time at ``until``."""
        yield
        while (now := self._clock.now()) < until:
            await self._clock.sleep_until(min(now + every, until))
            yield

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Poll the broker from expiry until all trades closed or ``deadline`` passed."""
        await self._clock.sleep_until(expiry)
        while True:
            got = [c for c in await broker.closes(trade_ids) if c.closed_at <= deadline]
            now = self._clock.now()
            if len(got) == len(trade_ids) or now >= deadline:
                return got
            await self._clock.sleep_until(min(now + self._poll, deadline))
