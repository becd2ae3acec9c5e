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

A step with an idempotency key is batched too, exactly once (S-SVC-1): the
batch's keyed steps whose answer is not recorded yet (a recorded one is
replayed, read without the write lock) go in one *enclosing* transaction of
their own (the bare steps keep theirs, so a fault of one kind never fails
the other): each key is claimed, the steps are taken
(`ScenarioService.step_many` joins the transaction), and each answer is
recorded, all committed together or not at all. A key sent twice in one
batch is stepped once and the second is its replay. If that transaction
fails, each keyed step goes again on its own through
`tradeleague.accounts.idempotent`, which finds the recorded answer if the
failed commit had in fact happened, and otherwise steps for the first time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from tradeleague.accounts import Account
from tradeleague.accounts.credentials import HEADER, Credential
from tradeleague.accounts.idempotency import (
    claim,
    fingerprint,
    idempotent,
    record,
    recorded,
)
from tradeleague.errors import ServiceError
from tradeleague.events import canonical_json
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.league.scenario.steps import MAX_BATCH

__all__ = ["StepBatcher"]

Reply = tuple[int, bytes, bool]
"""A step's answer: its status, its response body (UTF-8 JSON) and whether it was replayed."""

_Pending = tuple[str, str, str | None, "asyncio.Future[Reply]"]
"""A waiting step: the API key, run id and idempotency key, and the future its answer settles."""

Answers = list[Reply | BaseException]
"""Each step's answer, or its error, in request order."""

_Keyed = tuple[int, Account, str, str]
"""A keyed step of a batch: its place in the batch, account, run id and idempotency key."""

_NOT_ANSWERED: Final = "the batch ended without an answer for this step"

_LOG = logging.getLogger(__name__)


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
        """Return a bare step's response body (UTF-8 JSON).

        Raises
        ------
        ServiceError, StoreError
            As ``ScenarioService.step`` would, for this step alone.
        """
        return (await self.reply(key, run_id, None))[1]

    async def reply(self, key: str, run_id: str, once: str | None) -> Reply:
        """Return the step's answer; ``once``: its idempotency key (checked by the caller).

        Raises
        ------
        ServiceError, StoreError
            As ``ScenarioService.step`` would, for this step alone (with a key:
            as the step route's idempotent call would).
        """
        queue = self._queue()
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        queue.waiting.append((key, run_id, once, future))
        if not queue.busy:
            self._start(queue)
        # a cancelled wait cancels only the future (see the module notes)
        return await future

    def _start(self, queue: _Queue) -> None:
        waiting = [w for w in queue.waiting if not w[3].done()]  # not the cancelled
        batch, queue.waiting = waiting[:MAX_BATCH], waiting[MAX_BATCH:]
        if not batch:
            return
        queue.busy = True
        task = asyncio.get_running_loop().create_task(self._write(queue, batch))
        queue.tasks.add(task)  # kept until done: the loop holds tasks only weakly
        task.add_done_callback(queue.tasks.discard)

    def _work(self, requests: list[tuple[str, str, str | None]]) -> Answers:
        """Authenticate and step every request; encode each answer (in a worker thread)."""
        service, dumps = self._service, self._dumps
        bare: list[tuple[int, Account, str]] = []
        keyed: list[_Keyed] = []
        out: Answers = [RuntimeError(_NOT_ANSWERED)] * len(requests)
        for i, (key, run_id, once) in enumerate(requests):
            try:
                account = service.authenticate(Credential(key, HEADER))
            except ServiceError as exc:  # an unknown key: that request's 401 alone
                out[i] = exc
                continue
            if once is None:
                bare.append((i, account, run_id))
            else:
                keyed.append((i, account, run_id, once))
        if bare:
            try:
                done = service.step_many([(account, run_id) for _, account, run_id in bare])
            except Exception as exc:  # a lone step that failed: its error
                done = [exc] * len(bare)
            for (i, _, _), result in zip(bare, done, strict=True):
                out[i] = (
                    result
                    if isinstance(result, BaseException)
                    else (200, dumps(result).encode("utf-8"), False)
                )
        keyed = self._unanswered(keyed, out)
        if len(keyed) > 1 and self._keyed_together(keyed, out):
            keyed = []
        for i, account, run_id, once in keyed:
            out[i] = self._keyed_alone(account, run_id, once)
        return out

    def _unanswered(self, keyed: list[_Keyed], out: Answers) -> list[_Keyed]:
        """Answer the keyed steps already recorded (their replays); return the others."""
        fresh: list[_Keyed] = []
        for i, account, run_id, once in keyed:
            digest = fingerprint("POST", f"/runs/{run_id}/step", {})
            try:
                replay = recorded(self._service, account, once, digest)
            except Exception as exc:  # 422 for other parameters, or the database's error
                out[i] = exc
                continue
            if replay is None:
                fresh.append((i, account, run_id, once))
            else:
                out[i] = (replay[0], replay[1].encode("utf-8"), True)
        return fresh

    def _keyed_alone(self, account: Account, run_id: str, once: str) -> Reply | BaseException:
        """Step once per key as the step route does (`tradeleague.accounts.idempotent`)."""
        service, dumps = self._service, self._dumps
        digest = fingerprint("POST", f"/runs/{run_id}/step", {})
        try:
            status, text, replayed = idempotent(
                service,
                account,
                once,
                digest,
                lambda: (200, dumps(service.step(account, run_id))),
            )
        except Exception as exc:
            return exc
        return status, text.encode("utf-8"), replayed

    def _keyed_together(self, keyed: list[_Keyed], out: Answers) -> bool:
        """Claim, step and record the keyed steps in one transaction (see the module notes).

        Returns whether it committed. If anything failed it (a step that
        failed other than with a service error included), nothing of it or
        all of it committed, and ``out`` is left as it was: each step then
        goes on its own.
        """
        try:
            answers = self._claim_step_record(keyed)
        except Exception:
            _LOG.info("a batch of keyed steps failed; each goes again alone", exc_info=True)
            return False
        for i, answer in answers.items():
            out[i] = answer
        return True

    def _claim_step_record(self, keyed: list[_Keyed]) -> dict[int, Reply | BaseException]:
        service, dumps = self._service, self._dumps
        answers: dict[int, Reply | BaseException] = {}
        first: dict[tuple[str, str], tuple[int, str]] = {}  # (account, key) -> (place, digest)
        twice: list[tuple[int, int, bool]] = []  # (place, place of its first, other parameters)
        steps: list[_Keyed] = []
        with service.write("step runs in", enclosing=True) as conn:
            # keys claimed in one order by every batch: two batches never wait on each other
            for i, account, run_id, once in sorted(keyed, key=lambda k: (k[1].name, k[3], k[0])):
                digest = fingerprint("POST", f"/runs/{run_id}/step", {})
                seen = first.get((account.name, once))
                if seen is not None:  # the same key again in this batch: its replay
                    twice.append((i, seen[0], digest != seen[1]))
                    continue
                first[(account.name, once)] = (i, digest)
                try:
                    replay = claim(conn, service, account, once, digest)
                except ServiceError as exc:
                    answers[i] = exc
                    continue
                if replay is not None:
                    answers[i] = (replay[0], replay[1].encode("utf-8"), True)
                else:
                    steps.append((i, account, run_id, once))
            steps.sort(key=lambda k: k[0])  # in request order
            done = service.step_many([(account, run_id) for _, account, run_id, _ in steps])
            for (i, account, _, once), result in zip(steps, done, strict=True):
                if isinstance(result, ServiceError):
                    status, text = result.status, canonical_json(result.body())
                elif isinstance(result, BaseException):
                    raise result
                else:
                    status, text = 200, dumps(result)
                record(conn, account, once, status, text)
                answers[i] = (status, text.encode("utf-8"), False)
        for i, earlier, other in twice:
            answer = answers[earlier]
            if other:
                answers[i] = ServiceError(
                    422,
                    "idempotency_key_reused",
                    "This idempotency_key was used with different parameters; use a new key.",
                )
            elif isinstance(answer, BaseException):
                answers[i] = answer
            else:
                answers[i] = (answer[0], answer[1], True)
        return answers

    async def _write(self, queue: _Queue, batch: list[_Pending]) -> None:
        requests = [(key, run_id, once) for key, run_id, once, _ in batch]
        try:
            results = await self._call(self._service, lambda: self._work(requests))
        except asyncio.CancelledError:  # the loop is shutting down
            for _, _, _, future in batch:
                future.cancel()
            raise
        except Exception as exc:  # the hand-off itself failed: every step of it did
            results = [exc] * len(batch)
        finally:
            queue.busy = False
            if queue.waiting:
                self._start(queue)
        for i, (_, _, _, future) in enumerate(batch):
            if future.done():  # its request was cancelled
                continue
            result = results[i] if i < len(results) else RuntimeError(_NOT_ANSWERED)
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                future.set_result(result)
