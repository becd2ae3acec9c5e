"""How time passes in a round: live (measured) or replayed (recorded or simulated).

The round's logic is one code path (``arena.DirectionArena``); only two things
differ between live play and replay, and they live here:

* **Answers.** Live, each agent's answer is handled the moment it arrives
  (``asyncio.as_completed``), under a hard window. In replay every agent
  answers at once with the latency it *would* have taken (the recorded
  latency of a recorded call, or a simulated one); the answers are then
  handled in order of ``ask + latency`` and the replay clock is moved to each
  answer's moment before its trade is placed. So the 45 s window (D-RND-3)
  and the 30 s late rule (D-RND-4) fall exactly as they would have live.
* **Closes.** Live, the broker is polled from expiry until every trade has
  closed or the grace (45 s) has passed. In replay the broker is asked once,
  at expiry, and a close stamped after the grace counts as missing; the clock
  never runs past the next round's open, so rounds stay back to back.

A replay may also delay the ask after the open (``ask_lag``): a feed or a
scheduler that was late. The expiry does not move, which is how ``late``
answers arise on a five-minute round with a 45 s window.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from tradeleague.agents.base import AgentReply
from tradeleague.broker.base import Broker, CloseEvent
from tradeleague.calls import Outcome
from tradeleague.clock import Clock, ReplayClock

__all__ = ["LivePacing", "Pacing", "ReplayPacing"]


class Pacing(Protocol):
    """The two things that differ between live play and replay."""

    live: bool
    """Whether events are appended as they happen (live) or per round (replay)."""

    async def ask(self, open_at: datetime) -> None:
        """Wait until the round's call may go out (replay: apply the ask lag)."""
        ...

    def replies(
        self, asks: Sequence[Awaitable[AgentReply]], window: timedelta
    ) -> AsyncGenerator[tuple[int, AgentReply], None]:
        """Yield ``(index, reply)`` in the order the answers arrive."""
        ...

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Return the close events reported by ``deadline``."""
        ...


async def _cancel(tasks: Sequence[asyncio.Future[object]] | Sequence[asyncio.Task[object]]) -> None:
    """Cancel the tasks still running and wait until they have stopped."""
    running = [t for t in tasks if not t.done()]
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


def _timeout(window: timedelta) -> AgentReply:
    return AgentReply(outcome=Outcome.TIMEOUT, latency_ms=int(window.total_seconds() * 1000) + 1)


class ReplayPacing:
    """Replay: answers in latency order, the clock jumping to each (see the module notes).

    Parameters
    ----------
    clock
        The replay clock the round runs on.
    ask_lag
        How long after the open the call goes out, per round open (default none).
    """

    live = False

    def __init__(
        self, clock: ReplayClock, ask_lag: Callable[[datetime], timedelta] | None = None
    ) -> None:
        self._clock = clock
        self._lag = ask_lag

    async def ask(self, open_at: datetime) -> None:
        """Move the clock to the open plus its lag."""
        lag = self._lag(open_at) if self._lag is not None else timedelta(0)
        await self._clock.sleep_until(open_at + lag)

    async def replies(
        self, asks: Sequence[Awaitable[AgentReply]], window: timedelta
    ) -> AsyncGenerator[tuple[int, AgentReply], None]:
        """Gather every answer, then yield them in ``(latency, index)`` order.

        If one ask raises, the others are cancelled before the error propagates.
        """
        tasks = [asyncio.ensure_future(a) for a in asks]
        try:
            got = await asyncio.gather(*tasks)
        finally:
            await _cancel(tasks)
        for index in sorted(range(len(got)), key=lambda i: (got[i].latency_ms, i)):
            yield index, got[index]

    async def closes(
        self, broker: Broker, trade_ids: Sequence[str], expiry: datetime, deadline: datetime
    ) -> list[CloseEvent]:
        """Ask the broker once at expiry; keep the closes stamped by ``deadline``."""
        await self._clock.sleep_until(expiry)
        return [c for c in await broker.closes(trade_ids) if c.closed_at <= deadline]


class LivePacing:
    """Live: answers as they arrive under a hard window; closes polled until the grace ends.

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

    async def ask(self, open_at: datetime) -> None:
        """Go at once: the ask lag is whatever fetching the round's data took."""
        await self._clock.sleep_until(open_at)

    async def replies(
        self, asks: Sequence[Awaitable[AgentReply]], window: timedelta
    ) -> AsyncGenerator[tuple[int, AgentReply], None]:
        """Yield each answer as it arrives; one still missing at the window is a timeout.

        When the consumer stops early (an error in the round, the generator
        closed), every ask still outstanding is cancelled.
        """

        async def bounded(index: int, ask: Awaitable[AgentReply]) -> tuple[int, AgentReply]:
            try:
                return index, await asyncio.wait_for(ask, window.total_seconds())
            except TimeoutError:
                return index, _timeout(window)

        tasks = [asyncio.ensure_future(bounded(i, a)) for i, a in enumerate(asks)]
        try:
            for done in asyncio.as_completed(tasks):
                yield await done
        finally:
            await _cancel(tasks)

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
