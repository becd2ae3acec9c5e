"""Stepping runs: one step, or many steps of many runs in one transaction (group commit).

A step locks its run, advances it one bar (`formats.scenario.step`), appends
its equity to the run's path, saves the new state and appends its fills, all
in one transaction (S-API-3, S-SVC-2). `Stepper.step_many` does that for
a batch of steps, the requests that arrived while the previous batch was
being written (`tradeleague.league.scenario.stepbatch`): one ``BEGIN``, one read of every
run in the batch, one multi-row insert of the equity rows, one multi-row
update of the states, one append of the events and one ``COMMIT``, instead
of all of them per step. On two shared cores that was most of a step's CPU
when 100 agents stepped at once (`bench/api_steps.py`).

Each step of a batch is decided exactly as a step on its own: in request
order, each one sees what the steps before it in the batch wrote (a run
stepped twice in one batch is re-read after the writes so far). A step the
service refuses (an unknown run, a completed or abandoned one) is that
request's error and the others go on; an idle run is still marked abandoned
in the batch's transaction. Anything else that fails takes the whole batch's
transaction with it, and then each step of the batch is tried again on its
own, so one broken step never fails another.

A lone step of a run whose state the service holds (it wrote or read it
last) is written without reading the row first (`_step_kept`): the update
itself checks that the row still holds that state, is active and is not
idle, and only when it does not is the row read and the step taken the
full way. A run's state is kept as it changes, not read back on every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

import sqlalchemy as sa

from tradeleague.accounts import Account, Ledger
from tradeleague.errors import ServiceError
from tradeleague.events import Event, EventKind, canonical_json
from tradeleague.events.scenario import SCENARIO_RUN_COMPLETED
from tradeleague.formats.scenario import (
    RunState,
    RunStatus,
    ServicePreset,
    StepReport,
    compute_results,
    step,
)
from tradeleague.league.scenario.book import AGENT_ACCOUNT, RunBook, run_stream
from tradeleague.league.scenario.rows import (
    APPEND_EQUITY,
    EQUITY_PATH,
    RUN_FOR_UPDATE,
    SAVE_STATE,
    STEP_STATE,
    abandoned,
    not_found,
    require_active,
)
from tradeleague.league.scenario.runs import AgentLoop, move_status
from tradeleague.league.scenario.scenarios import Catalogue, Scenario
from tradeleague.league.scenario.tables import scenario_runs
from tradeleague.league.scenario.views import step_view
from tradeleague.store import Store, order_filled

__all__ = ["MAX_BATCH", "Stepper"]

MAX_BATCH: Final = 256
"""The most steps one transaction writes (a batch is what arrived meanwhile, up to this)."""

_RUNS: Final = (
    sa.select(scenario_runs)
    .where(scenario_runs.c.id.in_(sa.bindparam("p_runs", expanding=True)))
    .order_by(scenario_runs.c.id)  # rows locked in one order by every batch (PostgreSQL)
    .with_for_update()
)
"""The rows of several runs, locked (SQLite holds the database lock instead)."""


@dataclass
class _Writes:
    """A batch's writes not yet sent: equity rows, states and events, in step order."""

    equity: list[dict[str, object]] = field(default_factory=list)
    states: list[dict[str, object]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)
    """Runs with a write in the lists (or already sent in this batch)."""

    def flush(self, conn: sa.Connection, store: Store) -> None:
        """Send what is pending, each kind as one multi-row statement."""
        # one row as plain parameters: SQLAlchemy's executemany path costs more for one
        for statement, rows in ((APPEND_EQUITY, self.equity), (SAVE_STATE, self.states)):
            if rows:
                conn.execute(statement, rows[0] if len(rows) == 1 else rows)
        if self.events:
            store.append_in(conn, self.events)
        self.equity, self.states, self.events = [], [], []


class Stepper:
    """The step of the agent loop, alone or batched (S-API-3, S-SVC-2, S-SVC-3).

    Parameters
    ----------
    ledger
        The store, clock and transactions of the service.
    preset
        The idle limit (`ServicePreset`).
    catalogue
        The scenario versions.
    book
        The runs' states and owners this process keeps.
    loop
        The rest of the agent loop (what marks an idle run abandoned).
    """

    def __init__(
        self,
        ledger: Ledger,
        preset: ServicePreset,
        catalogue: Catalogue,
        book: RunBook,
        loop: AgentLoop,
    ) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self.clock = ledger.clock
        self.preset = preset
        self.catalogue = catalogue
        self.book = book
        self.loop = loop

    def step(self, account: Account, run_id: str) -> dict[str, object]:
        """Advance the run one bar, filling queued orders at the next open (S-API-3, S-SVC-2).

        Raises
        ------
        ServiceError
            404 ``run_not_found``; 409 ``run_complete`` or ``run_abandoned``.
        """
        result = self._step_batch([(account, run_id)])[0]
        if isinstance(result, ServiceError):
            raise result
        return result

    def step_many(
        self, requests: Sequence[tuple[Account, str]]
    ) -> list[dict[str, object] | BaseException]:
        """Step each ``(account, run_id)`` in order, in one transaction when all go well.

        Returns each step's view, or the error that step alone would raise
        (see the module notes). At most `MAX_BATCH` requests.
        """
        if len(requests) > MAX_BATCH:
            raise ValueError(f"a batch holds at most {MAX_BATCH} steps, not {len(requests)}")
        try:
            return list(self._step_batch(requests))
        except Exception:
            if len(requests) == 1:
                raise
        out: list[dict[str, object] | BaseException] = []
        for request in requests:  # the shared transaction failed: each step on its own
            try:
                out.extend(self._step_batch([request]))
            except Exception as exc:
                out.append(exc)
        return out

    def _step_batch(
        self, requests: Sequence[tuple[Account, str]]
    ) -> list[dict[str, object] | ServiceError]:
        out: list[dict[str, object] | ServiceError] = []
        remember: list[tuple[str, str, RunState]] = []
        writes = _Writes()
        with self.ledger.write("step a run in") as conn:
            fast = self._step_kept(conn, *requests[0]) if len(requests) == 1 else None
            if fast is not None:  # a lone step from the kept state, which was current
                out.append(fast[0])
                remember.append(fast[1])
            else:
                self._step_rows(conn, requests, writes, out, remember)
        book = self.book

        def keep() -> None:  # only once the batch has committed (or what encloses it)
            for run_id, text, state in remember:
                book.remember(run_id, text, state)

        self.ledger.after_commit(keep)
        return out

    def _step_rows(
        self,
        conn: sa.Connection,
        requests: Sequence[tuple[Account, str]],
        writes: _Writes,
        out: list[dict[str, object] | ServiceError],
        remember: list[tuple[str, str, RunState]],
    ) -> None:
        """Step each request from its run's row, read once for the batch (see the module notes)."""
        ids = sorted({r for _, r in requests})
        found = (
            conn.execute(_RUNS, {"p_runs": ids})
            if len(ids) > 1  # an expanding IN is compiled anew each time: not for one run
            else conn.execute(RUN_FOR_UPDATE, {"p_run": ids[0]})
        )
        rows = {str(r.id): r for r in found}
        for account, run_id in requests:
            if run_id in writes.touched:  # stepped earlier in this batch: read it again
                writes.flush(conn, self.store)
                rows[run_id] = self.book.row(conn, account, run_id, lock=True)
            try:
                view, kept = self._step_one(conn, rows.get(run_id), account, run_id, writes)
            except ServiceError as exc:
                out.append(exc)
                continue
            out.append(view)
            remember.append(kept)
        writes.flush(conn, self.store)

    def _step_one(
        self,
        conn: sa.Connection,
        row: sa.Row[tuple[object, ...]] | None,
        account: Account,
        run_id: str,
        writes: _Writes,
    ) -> tuple[dict[str, object], tuple[str, str, RunState]]:
        """Decide one step, queue its writes; return its view and the state to remember."""
        now = self.clock.now()
        if row is None or row.account != account.name:
            raise not_found(run_id)
        self.book.note_owner(row)
        if self.loop.idle(row, now):
            writes.flush(conn, self.store)  # the batch's events stay in request order
            self.loop.abandon(conn, run_id, now)
            writes.touched.add(run_id)
            raise abandoned(run_id, self.preset.idle_limit)
        require_active(row, self.preset.idle_limit)
        scenario = self.catalogue.scenario(str(row.scenario_id))
        before = self.book.state(run_id, str(row.state))
        after, report = step(before, scenario.bars, scenario.config, rules=scenario.rules)
        text = after.to_json()
        writes.touched.add(run_id)
        _queue_step(writes, run_id, scenario, report, now)
        if after.done:
            writes.flush(conn, self.store)  # the whole path is read once, at the end (this row too)
            equity = [int(v) for v in conn.execute(EQUITY_PATH, {"p_run": run_id}).scalars()]
            if len(equity) != report.index + 1:  # never scored from a path with a hole
                raise ValueError(
                    f"run {run_id} has {len(equity)} equity rows, not {report.index + 1}"
                )
            results = compute_results(
                equity,
                periods_per_year=scenario.config.periods_per_year,
                liquidated=after.liquidated,
            )
            payload = results.to_payload()
            # The equity path rides on the completion event so the record alone
            # rebuilds the run's chart and its ST-2 verdicts (older events lack it).
            completed = {"run": run_id, **payload, "equity": [str(v) for v in equity]}
            writes.events.append(Event(run_stream(run_id), SCENARIO_RUN_COMPLETED, completed, now))
            move_status(
                conn,
                run_id,
                RunStatus.ACTIVE,
                RunStatus.COMPLETE,
                state=text,
                active_at=now,
                results=canonical_json(payload),
            )
        else:
            writes.states.append({"p_run": run_id, "p_state": text, "p_now": now})
        return step_view(run_id, report, after, scenario.views), (run_id, text, after)

    def _step_kept(
        self, conn: sa.Connection, account: Account, run_id: str
    ) -> tuple[dict[str, object], tuple[str, str, RunState]] | None:
        """Step a run from the state the service kept, writing without reading its row first.

        `STEP_STATE` changes the row only if it still holds the kept state of
        an active run that is not idle; otherwise (another process changed it,
        the run is over or idle, or its row was never read here) nothing is
        written and ``None`` says to take the full way. So does the last step,
        which reads the whole path.
        """
        owner, kept = self.book.owner(run_id), self.book.kept(run_id)
        if owner is None or kept is None or owner[0] != account.name:
            return None
        text_before, before = kept
        scenario = self.catalogue.scenario(owner[1])
        after, report = step(before, scenario.bars, scenario.config, rules=scenario.rules)
        if after.done:
            return None
        now = self.clock.now()
        text = after.to_json()
        changed = conn.execute(
            STEP_STATE,
            {
                "p_run": run_id,
                "p_before": text_before,
                "p_cutoff": now - self.preset.idle_limit,
                "p_state": text,
                "p_now": now,
            },
        ).rowcount
        if changed != 1:
            return None
        writes = _Writes()
        _queue_step(writes, run_id, scenario, report, now)
        writes.flush(conn, self.store)
        return step_view(run_id, report, after, scenario.views), (run_id, text, after)


def _queue_step(
    writes: _Writes, run_id: str, scenario: Scenario, report: StepReport, now: datetime
) -> None:
    """Queue a step's equity row and its events (its fills, a forced liquidation)."""
    writes.equity.append({"p_run": run_id, "p_idx": report.index, "p_equity": int(report.equity)})
    stream = run_stream(run_id)
    bar_time = scenario.views.event_time(report.index)
    extra = {"run": run_id, "index": report.index, "bar_time": bar_time}
    writes.events.extend(
        order_filled(stream, AGENT_ACCOUNT, f, now, {**extra, "forced": report.liquidated})
        for f in report.fills
    )
    if report.liquidated:
        writes.events.append(
            Event(
                stream,
                EventKind.POSITION_LIQUIDATED,
                {**extra, "equity": str(report.equity)},
                now,
            )
        )
