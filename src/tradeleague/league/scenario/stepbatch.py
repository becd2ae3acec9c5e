"""Bare steps that arrive together are written together: group commit on the event loop.

`StepBatcher` collects the bare steps (`tradeleague.league.scenario.steplane`) of one
event loop. While no batch is being written, a step starts one at once, so a
lone agent's step waits for nothing. Steps that arrive while a batch is
being written wait for it, and then all go as the next batch
(`ScenarioService.step_many`: one transaction), up to ``MAX_BATCH``. The
batch runs in a worker thread (`tradeleague.api.app.call`), never on the
loop, and each step's response body is encoded there too.

Each request gets its own step's answer or error, exactly as if it had
stepped alone; one batch at a time per loop also keeps the steps of a
process from queueing on SQLite's write lock one by one. A request
cancelled while its batch is written still has its step written, as a step
on its own would; one cancelled before its batch starts is left out of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final

from tradeleague.accounts.credentials import HEADER, Credential
from tradeleague.errors import ServiceError
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.league.scenario.steps import MAX_BATCH

__all__ = ["StepBatcher"]

_Pending = tuple[str, str, "asyncio.Future[bytes]"]
"""A waiting step: the API key, the run id and the future its answer settles."""

Answers = list[bytes | BaseException]
"""Each step's response body, or its error, in request order."""

_NOT_ANSWERED: Final = "the batch ended without an answer for this step"


class _Queue:
    """One event loop's waiting steps and whether a batch of it is being written."""

    def __init__(self) -> None:
        self.waiting: list[_Pending] = []
        self.busy = False
        self.tasks: set[asyncio.Task[None]] = set()


class StepBatcher:
    """Group the bare steps of each event loop into batches (see the module notes).

    Parameters
    ----------
    service
        The service the steps go to.
    call
        Runs a blocking call in a worker thread and awaits it
        (`tradeleague.api.app.call`).
    dumps
        The app's JSON text of a response body.
    """

    def __init__(
        self,
        service: ScenarioService,
        call: Callable[[ScenarioService, Callable[[], Answers]], Awaitable[Answers]],
        dumps: Callable[[object], str],
    ) -> None:
        self._service = service
        self._call = call
        self._dumps = dumps
        self._queues: dict[asyncio.AbstractEventLoop, _Queue] = {}

    def _queue(self) -> _Queue:
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:  # a new loop (a test client's, a restarted server's): forget closed ones
            for old in [old for old in self._queues if old.is_closed()]:
                del self._queues[old]
            queue = self._queues[loop] = _Queue()
        return queue

    async def step(self, key: str, run_id: str) -> bytes:
        """Return the step's response body (UTF-8 JSON).

        Raises
        ------
        ServiceError, StoreError
            As ``ScenarioService.step`` would, for this step alone.
        """
        queue = self._queue()
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        queue.waiting.append((key, run_id, future))
        if not queue.busy:
            self._start(queue)
        # a cancelled wait cancels only the future (see the module notes)
        return await future

    def _start(self, queue: _Queue) -> None:
        waiting = [w for w in queue.waiting if not w[2].done()]  # not the cancelled
        batch, queue.waiting = waiting[:MAX_BATCH], waiting[MAX_BATCH:]
        if not batch:
            return
        queue.busy = True
        task = asyncio.get_running_loop().create_task(self._write(queue, batch))
        queue.tasks.add(task)  # kept until done: the loop holds tasks only weakly
        task.add_done_callback(queue.tasks.discard)

    def _work(self, requests: list[tuple[str, str]]) -> Answers:
        """Authenticate and step every request; encode each answer (in a worker thread)."""
        service, dumps = self._service, self._dumps
        steps = []
        refused: dict[int, BaseException] = {}
        for i, (key, run_id) in enumerate(requests):
            try:
                steps.append((service.authenticate(Credential(key, HEADER)), run_id))
            except ServiceError as exc:  # an unknown key: that request's 401 alone
                refused[i] = exc
        done = iter(service.step_many(steps) if steps else [])
        out: Answers = []
        for i in range(len(requests)):
            result = refused[i] if i in refused else next(done)
            out.append(
                result if isinstance(result, BaseException) else dumps(result).encode("utf-8")
            )
        return out

    async def _write(self, queue: _Queue, batch: list[_Pending]) -> None:
        requests = [(key, run_id) for key, run_id, _ in batch]
        try:
            results = await self._call(self._service, lambda: self._work(requests))
        except asyncio.CancelledError:  # the loop is shutting down
            for _, _, future in batch:
                future.cancel()
            raise
        except Exception as exc:  # the hand-off itself failed: every step of it did
            results = [exc] * len(batch)
        finally:
            queue.busy = False
            if queue.waiting:
                self._start(queue)
        for i, (_, _, future) in enumerate(batch):
            if future.done():  # its request was cancelled
                continue
            result = results[i] if i < len(results) else RuntimeError(_NOT_ANSWERED)
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                future.set_result(result)
