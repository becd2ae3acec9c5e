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

from conftest import make_service, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
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
