"""The event loop's step batches: who waits, who goes together, and what each request gets.

`StepBatcher` (``tradeleague.league.scenario.stepbatch``) starts a batch for a lone step
at once and sends the steps that arrive meanwhile as the next batch; every
request gets its own answer or error, a request that stops waiting still has
its step written once its batch has started (not before), and a hand-off
that fails fails each of its steps (S-SVC-2).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa

from conftest import make_service, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.accounts.tables import idempotency_keys
from tradeleague.api.app import call, dumps
from tradeleague.clock import ReplayClock
from tradeleague.errors import ServiceError
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.stepbatch import Answers, StepBatcher


def _setup(tmp_path: Path, clock: ReplayClock, runs: int) -> tuple[ScenarioService, str, list[str]]:
    service = make_service(f"sqlite:///{tmp_path / 'batcher.db'}", clock)
    scenario = synthetic_scenario(service, bars=10)
    key = service.create_key("builder", Tier.PRO)
    me = service.authenticate(key)
    return service, key, [str(service.create_run(me, scenario.id)["id"]) for _ in range(runs)]


def _index(service: ScenarioService, key: str, run: str) -> int:
    return int(str(service.market(service.authenticate(key), run)["index"]))


def test_steps_arriving_during_a_batch_go_together_as_the_next(
    tmp_path: Path, clock: ReplayClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S-SVC-2: the first step goes alone at once; the nine sent meanwhile go as one batch."""
    service, key, runs = _setup(tmp_path, clock, 10)
    sizes: list[int] = []
    real = ScenarioService.step_many

    def counted(self: ScenarioService, requests: list[object]) -> object:
        sizes.append(len(requests))
        return real(self, requests)  # type: ignore[arg-type]

    monkeypatch.setattr(ScenarioService, "step_many", counted)
    batcher = StepBatcher(service, call, dumps)

    async def agents() -> list[bytes]:
        return list(await asyncio.gather(*(batcher.step(key, r) for r in runs)))

    bodies = asyncio.run(agents())
    assert sizes == [1, 9]
    assert [json.loads(b)["index"] for b in bodies] == [1] * 10
    assert [_index(service, key, r) for r in runs] == [1] * 10
    service.store.close()


def test_each_request_gets_its_own_error(tmp_path: Path, clock: ReplayClock) -> None:
    """S-SVC-4: an unknown key and an unknown run fail alone; the other steps are written."""
    service, key, runs = _setup(tmp_path, clock, 2)
    batcher = StepBatcher(service, call, dumps)

    async def agents() -> list[bytes | BaseException]:
        first = asyncio.ensure_future(batcher.step(key, runs[0]))  # alone, at once
        await asyncio.sleep(0)
        rest = [
            batcher.step("not-a-key", runs[1]),
            batcher.step(key, "NOSUCHRUN"),
            batcher.step(key, runs[1]),
        ]
        return list(await asyncio.gather(first, *rest, return_exceptions=True))

    first, bad_key, bad_run, second = asyncio.run(agents())
    assert isinstance(bad_key, ServiceError)
    assert (bad_key.status, bad_key.code) == (401, "invalid_api_key")
    assert isinstance(bad_run, ServiceError)
    assert (bad_run.status, bad_run.code) == (404, "run_not_found")
    assert [json.loads(b)["index"] for b in (first, second) if isinstance(b, bytes)] == [1, 1]
    service.store.close()


def test_a_request_cancelled_before_its_batch_is_left_out_and_during_it_is_written(
    tmp_path: Path, clock: ReplayClock
) -> None:
    """S-SVC-2: a wait cancelled before its batch starts is left out; one cancelled during it
    loses only its answer (the step is written, as a step alone would be)."""
    service, key, runs = _setup(tmp_path, clock, 3)
    batcher = StepBatcher(service, call, dumps)

    async def agents() -> list[bytes | BaseException]:
        first = asyncio.ensure_future(batcher.step(key, runs[0]))  # its batch starts at once
        await asyncio.sleep(0)
        gone = asyncio.ensure_future(batcher.step(key, runs[1]))  # waits for the next batch
        kept = asyncio.ensure_future(batcher.step(key, runs[2]))
        await asyncio.sleep(0)
        first.cancel()  # during its batch
        gone.cancel()  # before its batch
        return list(await asyncio.gather(first, gone, kept, return_exceptions=True))

    first, gone, kept = asyncio.run(agents())
    assert isinstance(first, asyncio.CancelledError)
    assert isinstance(gone, asyncio.CancelledError)
    assert isinstance(kept, bytes)
    assert [_index(service, key, r) for r in runs] == [1, 0, 1]
    service.store.close()


def test_a_failed_hand_off_fails_each_of_its_steps_and_the_next_batch_goes_on(
    tmp_path: Path, clock: ReplayClock
) -> None:
    """S-SVC-2: when the worker hand-off itself fails, each waiter of it gets that error."""
    service, key, runs = _setup(tmp_path, clock, 2)
    calls = 0

    async def flaky(svc: ScenarioService, work: Callable[[], Answers]) -> Answers:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("no worker thread")
        return await call(svc, work)

    batcher = StepBatcher(service, flaky, dumps)

    async def agents() -> list[bytes | BaseException]:
        failed = await asyncio.gather(batcher.step(key, runs[0]), return_exceptions=True)
        after = await asyncio.gather(batcher.step(key, runs[1]), return_exceptions=True)
        return [*failed, *after]

    failed, after = asyncio.run(agents())
    assert isinstance(failed, RuntimeError)
    assert isinstance(after, bytes)
    assert [_index(service, key, r) for r in runs] == [0, 1]
    service.store.close()


def _keyed_batch(batcher: StepBatcher, key: str, runs: list[str]) -> list[object]:
    """A lone keyed step on run 0, then four keyed steps that arrive while it is written."""

    async def agents() -> list[object]:
        first = asyncio.ensure_future(batcher.reply(key, runs[0], "a"))  # alone, at once
        await asyncio.sleep(0)
        rest = [
            batcher.reply(key, runs[1], "b"),
            batcher.reply(key, runs[1], "b"),  # the same key again in the batch
            batcher.reply(key, runs[2], "c"),
            batcher.reply(key, runs[2], "a"),  # run 0's key, for another run
        ]
        return list(await asyncio.gather(first, *rest, return_exceptions=True))

    return asyncio.run(agents())


def test_keyed_steps_go_together_and_each_key_steps_once(
    tmp_path: Path, clock: ReplayClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S-SVC-1, S-SVC-2: keyed steps arriving meanwhile go as one transaction, once per key."""
    service, key, runs = _setup(tmp_path, clock, 3)
    sizes: list[int] = []
    real = ScenarioService.step_many

    def counted(self: ScenarioService, requests: list[object]) -> object:
        sizes.append(len(requests))
        return real(self, requests)  # type: ignore[arg-type]

    monkeypatch.setattr(ScenarioService, "step_many", counted)
    batcher = StepBatcher(service, call, dumps)
    a, b, b_again, c, a_reused = _keyed_batch(batcher, key, runs)
    assert sizes == [2], "the batch's two new keys stepped in one call"
    for answer in (a, b, c):
        assert isinstance(answer, tuple)
        assert (answer[0], json.loads(answer[1])["index"], answer[2]) == (200, 1, False)
    assert b_again == (200, b[1], True)  # type: ignore[index]
    assert isinstance(a_reused, ServiceError)
    assert a_reused.code == "idempotency_key_reused"
    assert asyncio.run(batcher.reply(key, runs[1], "b")) == b_again
    assert [_index(service, key, r) for r in runs] == [1, 1, 1]
    service.store.close()


@pytest.mark.parametrize("point", ["commit", "committed"])
def test_a_keyed_batch_cut_at_its_commit_steps_each_key_once(
    tmp_path: Path, clock: ReplayClock, point: str
) -> None:
    """S-SVC-1: a keyed batch whose commit is cut, before or after, is retried one by one:
    each step then runs for the first time, or is found recorded, never both."""
    service, key, runs = _setup(tmp_path, clock, 3)
    cuts: list[str] = []

    def cut(at: str, conn: sa.Connection) -> None:
        if (
            at == point
            and not cuts
            and "b" in str(conn.execute(sa.select(idempotency_keys.c.key)).scalars().all())
        ):
            cuts.append(at)
            conn.connection.dbapi_connection.close()  # type: ignore[union-attr]
            conn.exec_driver_sql("SELECT 1")

    service.store.commit_fault = cut
    batcher = StepBatcher(service, call, dumps)
    a, b, b_again, c, a_reused = _keyed_batch(batcher, key, runs)
    service.store.commit_fault = None
    assert cuts == [point], "the keyed batch's commit was cut"
    for answer in (a, b, c):
        assert isinstance(answer, tuple)
        assert json.loads(answer[1])["index"] == 1
    assert isinstance(b_again, tuple)
    assert b_again[1] == b[1]  # type: ignore[index]
    assert isinstance(a_reused, ServiceError)
    assert [_index(service, key, r) for r in runs] == [1, 1, 1], "each key stepped once"
    service.store.close()
