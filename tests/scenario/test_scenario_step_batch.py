"""Steps written together in one transaction answer as the same steps one by one (S-API-3, S-SVC-2).

`ScenarioService.step_many` writes a batch of steps of many runs in one
transaction; `StepBatcher` hands it the bare steps that arrive while a batch
is being written. Each request must get exactly the answer (or the error) it
would get stepping alone, an idle run is still abandoned, and one broken step
fails alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from conftest import make_service, serve, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Account, Tier
from tradeleague.clock import ReplayClock
from tradeleague.errors import ServiceError
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario import steps as steps_module
from tradeleague.league.scenario.steps import Stepper
from tradeleague.league.scenario.tables import scenario_run_equity, scenario_runs
from tradeleague.money import qty
from tradeleague.sim import Order, Side
from tradeleague.store import verify


def _world(url: str, clock: ReplayClock) -> tuple[ScenarioService, Account, Account, list[str]]:
    """A service with three runs of a 6-bar scenario: one with an order, one a bar from its end."""
    service = make_service(url, clock)
    scenario = synthetic_scenario(service, bars=6)
    me = service.authenticate(service.create_key("builder", Tier.PRO))
    other = service.authenticate(service.create_key("someone", Tier.PRO))
    runs = [str(service.create_run(me, scenario.id)["id"]) for _ in range(3)]
    service.trade(me, runs[0], [Order("SPY", Side.BUY, qty("7"))])
    for _ in range(4):  # the last run is one step from its end
        service.step(me, runs[2])
    return service, me, other, runs


def _answer(result: object, runs: Sequence[str]) -> object:
    """A result with the run ids named by their place, an error by its status and code."""
    if isinstance(result, ServiceError):
        return ("error", result.status, result.code)
    if isinstance(result, BaseException):
        return ("error", type(result).__name__)
    text = repr(result)
    for i, run in enumerate(runs):
        text = text.replace(run, f"run{i}")
    return text


def _stored(service: ScenarioService, runs: Sequence[str]) -> list[tuple[object, ...]]:
    """Every run's status, state and equity path, as the database holds them."""
    out: list[tuple[object, ...]] = []
    with service.store.transaction("read") as conn:
        for run in runs:
            row = conn.execute(sa.select(scenario_runs).where(scenario_runs.c.id == run)).one()
            path = conn.execute(
                sa.select(scenario_run_equity.c.idx, scenario_run_equity.c.equity)
                .where(scenario_run_equity.c.run_id == run)
                .order_by(scenario_run_equity.c.idx)
            ).all()
            out.append((row.status, row.state, row.results, [tuple(p) for p in path]))
    return out


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_batch_answers_and_writes_as_the_same_steps_one_by_one(
    tmp_path: Path, clock: ReplayClock, backend: str, request: pytest.FixtureRequest
) -> None:
    """S-API-3, S-SVC-2: repeats, strangers, unknown ids and a completing run in one batch.

    The batch runs on SQLite and on PostgreSQL (its rows locked in one order); the
    same steps one by one run on SQLite.
    """
    url = (
        f"sqlite:///{tmp_path / 'b.db'}"
        if backend == "sqlite"
        else str(request.getfixturevalue("pg_url"))
    )
    batched, me_b, other_b, runs_b = _world(url, clock)
    alone, me_a, other_a, runs_a = _world(f"sqlite:///{tmp_path / 'a.db'}", clock)

    def plan(me: Account, other: Account, runs: list[str]) -> list[tuple[Account, str]]:
        return [
            (me, runs[0]),  # fills the queued order
            (me, runs[1]),
            (me, runs[0]),  # the same run again, after the batch's own write
            (me, "NOSUCHRUN"),
            (other, runs[2]),  # another account's run: not found
            (me, runs[2]),  # completes: results and the whole path
            (me, runs[2]),  # complete now: refused
            (me, runs[1]),
        ]

    got = batched.step_many(plan(me_b, other_b, runs_b))
    want: list[object] = []
    for account, run in plan(me_a, other_a, runs_a):
        try:
            want.append(alone.step(account, run))
        except ServiceError as exc:
            want.append(exc)
    assert [_answer(r, runs_b) for r in got] == [_answer(r, runs_a) for r in want]
    assert [_answer(r, runs_b) for r in got][3:5] == [("error", 404, "run_not_found")] * 2
    assert _answer(got[6], runs_b) == ("error", 409, "run_complete")
    # the same rows: each run's status, state, results and equity path
    assert _stored(batched, runs_b) == _stored(alone, runs_a)
    assert not verify(batched.store).mismatches
    batched.store.close()
    alone.store.close()


def test_an_idle_run_is_abandoned_in_the_batch_and_the_others_step(
    tmp_path: Path, clock: ReplayClock
) -> None:
    """S-SVC-3: a run idle for the limit is marked abandoned by a batch that steps another."""
    service, me, _other, runs = _world(f"sqlite:///{tmp_path / 'idle.db'}", clock)
    clock.advance(service.preset.idle_limit + timedelta(seconds=1))
    fresh = str(service.create_run(me, "syn")["id"])
    got = service.step_many([(me, runs[1]), (me, fresh)])
    assert _answer(got[0], runs) == ("error", 409, "run_abandoned")
    stepped = got[1]
    assert isinstance(stepped, dict)
    assert stepped["index"] == 1
    statuses = [s[0] for s in _stored(service, [runs[1], fresh])]
    assert statuses == ["abandoned", "active"]
    service.store.close()


def test_a_step_that_breaks_fails_alone(
    tmp_path: Path, clock: ReplayClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S-SVC-2: a step that raises takes only itself down; the batch's others are written."""
    service, me, _other, runs = _world(f"sqlite:///{tmp_path / 'broken.db'}", clock)
    before = _stored(service, runs)
    real = steps_module.step  # type: ignore[attr-defined]

    def breaking(state: Any, *args: Any, **kwargs: Any) -> Any:
        if state.index == 4:  # the run a bar from its end
            raise ValueError("broken on purpose")
        return real(state, *args, **kwargs)

    monkeypatch.setattr(steps_module, "step", breaking)
    got = service.step_many([(me, runs[0]), (me, runs[2]), (me, runs[1])])
    assert _answer(got[1], runs) == ("error", "ValueError")
    assert [r["index"] for r in got if isinstance(r, dict)] == [1, 1]
    after = _stored(service, runs)
    assert after[2] == before[2]  # nothing of the broken step was written
    assert after[0] != before[0]
    assert after[1] != before[1]
    service.store.close()


def test_a_batch_holds_at_most_max_batch_steps(tmp_path: Path, clock: ReplayClock) -> None:
    """A batch larger than one transaction may hold is refused, not cut silently."""
    service, me, _other, runs = _world(f"sqlite:///{tmp_path / 'max.db'}", clock)
    with pytest.raises(ValueError, match="at most"):
        service.step_many([(me, runs[1])] * (steps_module.MAX_BATCH + 1))
    service.store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_bare_steps_share_transactions_and_none_is_lost(
    tmp_path: Path,
    clock: ReplayClock,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
    request: pytest.FixtureRequest,
) -> None:
    """S-SVC-2: 30 agents stepping at once over HTTP are batched; each run advances exactly.

    On PostgreSQL as on SQLite: the bare steps are grouped by the same batcher.
    """
    url = (
        f"sqlite:///{tmp_path / 'http.db'}"
        if backend == "sqlite"
        else str(request.getfixturevalue("pg_url"))
    )
    service = make_service(url, clock)
    scenario = synthetic_scenario(service, bars=12)
    key = service.create_key("builder", Tier.PRO)
    sizes: list[int] = []
    real = ScenarioService.step_many

    def counted(self: ScenarioService, requests: Any) -> Any:
        sizes.append(len(requests))
        return real(self, requests)

    monkeypatch.setattr(ScenarioService, "step_many", counted)
    headers = {"X-API-Key": key}

    async def agents(url: str) -> list[int]:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
            made = [
                (await client.post("/api/v1/runs", json={"scenario": scenario.id})).json()["id"]
                for _ in range(30)
            ]

            async def loop(run: str) -> int:
                for _ in range(5):
                    answer = await client.post(f"/api/v1/runs/{run}/step")
                    assert answer.status_code == 200, answer.text
                return int((await client.get(f"/api/v1/runs/{run}/market")).json()["index"])

            return list(await asyncio.gather(*(loop(r) for r in made)))

    with serve(service) as url:
        indexes = asyncio.run(agents(url))
    assert indexes == [5] * 30
    assert sum(sizes) == 150
    assert max(sizes) > 1  # steps that arrived together went as one transaction
    assert not verify(service.store).mismatches
    service.store.close()


def _kept_outcomes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for every lone step, whether it was written from the kept state."""
    seen: list[bool] = []
    real = Stepper._step_kept

    def spy(self: Stepper, *args: Any) -> Any:
        result = real(self, *args)
        seen.append(result is not None)
        return result

    monkeypatch.setattr(Stepper, "_step_kept", spy)
    return seen


def test_a_step_from_the_kept_state_sees_another_process_change_the_run(
    tmp_path: Path, clock: ReplayClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S-SVC-2, S-API-3: a state changed by another service on the store is never stepped stale.

    Two services on one database: the first keeps its run's state from its own
    last step, the second queues an order and steps. The first's next step must
    start from the stored state (the second's), not from what it kept.
    """
    url = f"sqlite:///{tmp_path / 'two.db'}"
    first, me, _other, runs = _world(url, clock)
    second = make_service(url, clock)
    me_too = second.authenticate(second.create_key("another", Tier.PRO))
    run = runs[1]
    first.step(me, run)  # the first now keeps the run's state
    seen = _kept_outcomes(monkeypatch)
    with pytest.raises(ServiceError):
        second.step(me_too, run)  # not their run
    second.trade(me, run, [Order("SPY", Side.BUY, qty("3"))])
    second.step(me, run)  # index 2, and the order filled
    after = first.step(me, run)
    assert after["index"] == 3
    assert seen[-1] is False  # what it kept was stale: the row was read
    market = second.market(me, run)
    assert market["index"] == 3
    assert _stored(first, [run]) == _stored(second, [run])
    positions = repr(market)
    assert "SPY" in positions
    first.store.close()
    second.store.close()


def test_a_step_from_the_kept_state_abandons_an_idle_run(
    tmp_path: Path, clock: ReplayClock
) -> None:
    """S-SVC-3: the kept state does not let an idle run step; the run is marked abandoned."""
    service, me, _other, runs = _world(f"sqlite:///{tmp_path / 'kept-idle.db'}", clock)
    service.step(me, runs[1])
    clock.advance(service.preset.idle_limit)  # exactly the limit: idle
    with pytest.raises(ServiceError) as refused:
        service.step(me, runs[1])
    assert (refused.value.status, refused.value.code) == (409, "run_abandoned")
    assert _stored(service, [runs[1]])[0][0] == "abandoned"
    service.store.close()


def test_steps_from_the_kept_state_write_what_steps_from_the_row_write(
    tmp_path: Path, clock: ReplayClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S-API-3: the same run stepped with and without the kept state: same answers and rows."""
    kept, me_k, _o, runs_k = _world(f"sqlite:///{tmp_path / 'kept.db'}", clock)
    cold, me_c, _p, runs_c = _world(f"sqlite:///{tmp_path / 'cold.db'}", clock)
    seen = _kept_outcomes(monkeypatch)
    for _ in range(6):  # the order fills, then on to the end and one past it
        got = _try(lambda: kept.step(me_k, runs_k[0]))
        cold.book.states.clear()  # nothing kept: every step reads its row
        want = _try(lambda: cold.step(me_c, runs_c[0]))
        assert _answer(got, runs_k) == _answer(want, runs_c)
    assert _stored(kept, runs_k) == _stored(cold, runs_c)
    # kept (since the trade): the fill and three more from the kept state; the last (it
    # reads the path) and the step past the end the full way; cold: never
    assert seen[0::2] == [True, True, True, True, False, False]
    assert seen[1::2] == [False] * 6
    assert not verify(kept.store).mismatches
    kept.store.close()
    cold.store.close()


def _try(step: Any) -> object:
    try:
        return step()
    except ServiceError as exc:
        return exc
