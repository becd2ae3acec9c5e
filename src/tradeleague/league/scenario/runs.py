"""Runs of the scenario service: create, read, trade, results, abandon (the step: `steps`).

A step (`tradeleague.league.scenario.steps`) writes the new run state (small:
cash, positions, queue), appends its equity to the run's path
(``scenario_run_equity``, one row a step, so a step costs the same late in a
run as early) and appends its fills (and, at the end, the results and the
whole path) to the hash-chained event log, all in one transaction, so
``verify`` covers them. Quotas (S-SVC-5) and the idle limit (S-SVC-3) come
from the service's `ServicePreset`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Final

import sqlalchemy as sa

from tradeleague.accounts import Account, Ledger, Tier, iso, month_bounds
from tradeleague.accounts.tables import api_accounts
from tradeleague.errors import ServiceError
from tradeleague.events import Event, utc_iso
from tradeleague.events.scenario import (
    SCENARIO_ORDER_CANCELLED,
    SCENARIO_ORDERS_QUEUED,
    SCENARIO_RUN_ABANDONED,
    SCENARIO_RUN_STARTED,
)
from tradeleague.formats.scenario import (
    OrderRefused,
    RunState,
    RunStatus,
    ServicePreset,
    can_transition,
    queue_orders,
    start_run,
    version_digest,
)
from tradeleague.ids import new_id
from tradeleague.league.scenario.book import AGENT_ACCOUNT, RunBook, run_stream
from tradeleague.league.scenario.rows import (
    APPEND_EQUITY,
    SAVE_STATE,
    TOUCH,
    abandoned,
    require_active,
    results_of,
)
from tradeleague.league.scenario.scenarios import Catalogue, Scenario
from tradeleague.league.scenario.tables import scenario_runs
from tradeleague.league.scenario.views import market_view, order_view
from tradeleague.sim import Order
from tradeleague.store import account_opened

__all__ = ["TOUCH_EVERY", "WAITING_NOTE", "AgentLoop", "move_status"]

WAITING_NOTE: Final = (
    "Queued orders fill at the next bar's open; the leverage cap is checked there, against "
    "equity at that open, and a sell or cover waits for the buys and shorts queued before "
    "it, so the step may still reject an order, with its reason."
)
"""What a ``trades`` answer says of the orders it queued (which checks wait for the step)."""

TOUCH_EVERY: Final = timedelta(minutes=1)
"""A market read records activity only if the last was this long ago.

Reads stay reads almost always (one write a minute per run at most); the
abandonment clock is then at most this much early relative to the last read
(with the seed's limit: 4 days 23 h 59 min instead of 5 days), never late.
"""


class AgentLoop:
    """The agent loop on stored runs but the step (S-API-1, 2, 4, 5, S-SVC-2, S-SVC-3, S-SVC-5).

    Parameters
    ----------
    ledger
        The store, clock and transactions of the service.
    preset
        Quotas, idle limit and queue bound (`ServicePreset`).
    catalogue
        The scenario versions runs are pinned to.
    book
        The runs' states and owners this process keeps.
    """

    def __init__(
        self, ledger: Ledger, preset: ServicePreset, catalogue: Catalogue, book: RunBook
    ) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self.clock = ledger.clock
        self.preset = preset
        self.catalogue = catalogue
        self.book = book

    def create_run(self, account: Account, scenario_id: str) -> dict[str, object]:
        """Start a run of ``scenario_id`` (an id, or a name: its latest version), pinned to it.

        Raises
        ------
        ServiceError
            404 ``scenario_not_found``; 402 ``payment_required`` (free, with
            ``checkout_url``) or 429 ``quota_exceeded`` (pro, with ``resets_at``).
        """
        scenario = self.catalogue.scenario_by_ref(scenario_id)  # an id or a name (issue 11)
        now = self.clock.now()
        start, reset = month_bounds(now)
        limit = self.preset.monthly_runs(account.tier)
        run_id = new_id()
        state = start_run(scenario.config)
        with self.ledger.write("create a run in") as conn:
            conn.execute(
                sa.select(api_accounts.c.name)
                .where(api_accounts.c.name == account.name)
                .with_for_update()
            ).one()
            used = conn.execute(
                sa.select(sa.func.count())
                .select_from(scenario_runs)
                .where(
                    scenario_runs.c.account == account.name,
                    scenario_runs.c.created_at >= start,
                    scenario_runs.c.created_at < reset,
                )
            ).scalar_one()
            if used >= limit:
                if account.tier is Tier.FREE:
                    raise ServiceError(
                        402,
                        "payment_required",
                        f"Free accounts get {limit} runs per UTC month; upgrade to Pro for more.",
                        {"checkout_url": self.preset.checkout_url},
                    )
                raise ServiceError(
                    429,
                    "quota_exceeded",
                    f"Pro accounts get {limit} runs per UTC month; the quota resets at "
                    f"{utc_iso(reset)}.",
                    {"resets_at": iso(reset)},
                )
            conn.execute(
                sa.insert(scenario_runs).values(
                    id=run_id,
                    scenario_id=scenario.id,
                    account=account.name,
                    status=RunStatus.ACTIVE.value,
                    state=state.to_json(),
                    created_at=now,
                    active_at=now,
                )
            )
            conn.execute(
                APPEND_EQUITY, {"p_run": run_id, "p_idx": 0, "p_equity": int(scenario.config.cash)}
            )
            stream = run_stream(run_id)
            self.store.append_in(
                conn,
                [
                    Event(
                        stream,
                        SCENARIO_RUN_STARTED,
                        {
                            "run": run_id,
                            "scenario": scenario.id,
                            "content_hash": scenario.content_hash,
                            "owner": account.name,
                            "version_hash": _version_hash(scenario),
                        },
                        now,
                    ),
                    account_opened(stream, AGENT_ACCOUNT, scenario.config.cash, now),
                ],
            )
        return {
            "id": run_id,
            "scenario_id": scenario.id,
            "status": RunStatus.ACTIVE.value,
            "index": 0,
            "last_index": scenario.bars.last,
            "created_at": iso(now),
            "quota": {"used": int(used) + 1, "limit": limit, "resets_at": iso(reset)},
        }

    def idle(self, row: sa.Row[tuple[object, ...]], now: datetime) -> bool:
        """Return whether an active run has had no activity for ``idle_limit`` (S-SVC-3).

        Activity is any call on the run by its owner: ``trades``, ``step``,
        ``publish``, and also reading ``market``. An agent that reads the
        market while deciding is working on the run.
        """
        active_at: datetime = row.active_at
        return row.status == RunStatus.ACTIVE.value and now - active_at >= self.preset.idle_limit

    def abandon(self, conn: sa.Connection, run_id: str, now: datetime) -> None:
        """Mark an active run abandoned (S-SVC-3) in ``conn``'s transaction."""
        move_status(conn, run_id, RunStatus.ACTIVE, RunStatus.ABANDONED)
        self.book.forget(run_id)
        self.store.append_in(
            conn, [Event(run_stream(run_id), SCENARIO_RUN_ABANDONED, {"run": run_id}, now)]
        )

    @contextmanager
    def _mutate(
        self, account: Account, run_id: str, doing: str
    ) -> Iterator[tuple[sa.Connection, sa.Row[tuple[object, ...]], datetime]]:
        """Lock the run and yield it if active; an idle run is marked abandoned instead."""
        now = self.clock.now()
        with self.ledger.write(doing) as conn:
            row = self.book.row(conn, account, run_id, lock=True)
            if not self.idle(row, now):
                require_active(row, self.preset.idle_limit)
                yield conn, row, now
                return
            self.abandon(conn, run_id, now)
        raise abandoned(run_id, self.preset.idle_limit)

    def _keep(self, run_id: str, text: str, state: RunState) -> None:
        """Keep the run's new state once it is committed (an enclosing transaction's commit)."""
        book = self.book
        self.ledger.after_commit(lambda: book.remember(run_id, text, state))

    def run(self, account: Account, run_id: str) -> dict[str, object]:
        """Return one of the account's runs: its scenario, status, bar and queued orders.

        A read only: it neither counts as activity nor abandons an idle run.

        Raises
        ------
        ServiceError
            404 ``run_not_found`` for another account's run or an unknown id.
        """
        with self.ledger.read("read a run from") as conn:
            row = self.book.row(conn, account, run_id, lock=False)
        return self._run_view(row)

    def runs(self, account: Account) -> list[dict[str, object]]:
        """Return every run of the account, oldest first (``GET /runs?mine``)."""
        query = (
            sa.select(scenario_runs)
            .where(scenario_runs.c.account == account.name)
            .order_by(scenario_runs.c.created_at, scenario_runs.c.id)
        )
        with self.ledger.read("list runs in") as conn:
            rows = conn.execute(query).all()
        return [self._run_view(row) for row in rows]

    def _run_view(self, row: sa.Row[tuple[object, ...]]) -> dict[str, object]:
        run_id = str(row.id)
        scenario = self.catalogue.scenario(str(row.scenario_id))
        state = self.book.state(run_id, str(row.state))
        created: datetime = row.created_at
        return {
            "id": run_id,
            "scenario_id": scenario.id,
            "scenario_name": scenario.config.name,
            "status": str(row.status),
            "index": state.index,
            "last_index": scenario.bars.last,
            "done": state.done,
            "queued": [order_view(o) for o in state.queued],
            "created_at": iso(created),
        }

    def market(self, account: Account, run_id: str) -> dict[str, object]:
        """Return the run's current bar, recent history and portfolio (S-API-1).

        A read counts as activity on an active run (S-SVC-3, `TOUCH_EVERY`).
        """
        now = self.clock.now()
        with self.ledger.read("read a run from") as conn:
            row = self.book.row(conn, account, run_id, lock=False)
        if not self.idle(row, now) and row.status == RunStatus.ACTIVE.value:
            active_at: datetime = row.active_at
            if now - active_at >= TOUCH_EVERY:
                with self.ledger.write("record activity in") as conn:
                    conn.execute(TOUCH, {"p_run": run_id, "p_now": now})
        if self.idle(row, now):
            with self.ledger.write("abandon a run in") as conn:
                row = self.book.row(conn, account, run_id, lock=True)
                if self.idle(row, now):
                    self.abandon(conn, run_id, now)
            raise abandoned(run_id, self.preset.idle_limit)
        if row.status == RunStatus.ABANDONED.value:
            raise abandoned(run_id, self.preset.idle_limit)
        scenario = self.catalogue.scenario(str(row.scenario_id))
        state = self.book.state(run_id, str(row.state))
        return market_view(run_id, str(row.status), state, scenario.views, scenario.config)

    def trade(self, account: Account, run_id: str, orders: Sequence[Order]) -> dict[str, object]:
        """Queue market orders for the next step (S-API-2)."""
        with self._mutate(account, run_id, "queue orders in") as (conn, row, now):
            scenario = self.catalogue.scenario(str(row.scenario_id))
            state = self.book.state(run_id, str(row.state))
            try:
                state = queue_orders(
                    state, orders, scenario.config, max_queued=self.preset.max_queued
                )
            except OrderRefused as exc:
                raise ServiceError(
                    422,
                    "invalid_order",
                    f"Order {exc.position} cannot fill at the next step, so nothing was "
                    f"queued: {exc.detail}.",
                    {"order": exc.position, "reason": exc.reason},
                ) from None
            except ValueError as exc:
                raise ServiceError(422, "invalid_order", str(exc)) from None
            text = state.to_json()
            conn.execute(SAVE_STATE, {"p_run": run_id, "p_state": text, "p_now": now})
            queued = {"run": run_id, "index": state.index, "orders": _orders(orders)}
            event = Event(run_stream(run_id), SCENARIO_ORDERS_QUEUED, queued, now)
            self.store.append_in(conn, [event])
        self._keep(run_id, text, state)
        return {
            "run_id": run_id,
            "index": state.index,
            "accepted": len(orders),
            "queued": [order_view(o) for o in state.queued],
            "note": WAITING_NOTE,
        }

    def cancel_order(self, account: Account, run_id: str, position: int) -> dict[str, object]:
        """Cancel the queued order at ``position`` (0 first); orders already filled stay.

        Raises
        ------
        ServiceError
            404 ``order_not_found`` when no queued order has that place.
        """
        with self._mutate(account, run_id, "cancel an order in") as (conn, row, now):
            state = self.book.state(run_id, str(row.state))
            if not 0 <= position < len(state.queued):
                raise ServiceError(
                    404,
                    "order_not_found",
                    f"Run {run_id} has {len(state.queued)} queued order(s), numbered from 0; "
                    f"there is no queued order {position} (a filled order cannot be cancelled).",
                )
            cancelled = state.queued[position]
            state = replace(state, queued=state.queued[:position] + state.queued[position + 1 :])
            text = state.to_json()
            conn.execute(SAVE_STATE, {"p_run": run_id, "p_state": text, "p_now": now})
            gone = {"run": run_id, "index": state.index, "position": position}
            event = Event(run_stream(run_id), SCENARIO_ORDER_CANCELLED, gone, now)
            self.store.append_in(conn, [event])
        self._keep(run_id, text, state)
        return {
            "run_id": run_id,
            "index": state.index,
            "cancelled": order_view(cancelled),
            "queued": [order_view(o) for o in state.queued],
        }

    def results(self, account: Account, run_id: str) -> dict[str, object]:
        """Return a completed run's metrics (S-API-4); 409 ``run_not_complete`` before."""
        with self.ledger.read("read a run from") as conn:
            row = self.book.row(conn, account, run_id, lock=False)
        return results_of(row, run_id)

    def usage(self, account: str, tier: Tier) -> dict[str, object]:
        """Return the runs ``account`` started this UTC month against its quota (S-SVC-5)."""
        start, reset = month_bounds(self.clock.now())
        with self.ledger.read("count runs in") as conn:
            used = conn.execute(
                sa.select(sa.func.count())
                .select_from(scenario_runs)
                .where(
                    scenario_runs.c.account == account,
                    scenario_runs.c.created_at >= start,
                    scenario_runs.c.created_at < reset,
                )
            ).scalar_one()
        return {
            "tier": tier.value,
            "runs": int(used),
            "limit": self.preset.monthly_runs(tier),
            "resets_at": iso(reset),
        }

    def sweep_abandoned(self) -> int:
        """Mark every active run idle for the preset's ``idle_limit``; return how many (S-SVC-3)."""
        now = self.clock.now()
        with self.ledger.write("sweep idle runs in") as conn:
            ids = (
                conn.execute(
                    sa.select(scenario_runs.c.id)
                    .where(
                        scenario_runs.c.status == RunStatus.ACTIVE.value,
                        scenario_runs.c.active_at <= now - self.preset.idle_limit,
                    )
                    .with_for_update()
                )
                .scalars()
                .all()
            )
            for run_id in ids:
                self.abandon(conn, str(run_id), now)
        return len(ids)


def _orders(orders: Sequence[Order]) -> list[list[str]]:
    """Return orders as a queue event records them (``[symbol, side, micro-units]`` each)."""
    return [[o.symbol, o.side.value, str(int(o.qty))] for o in orders]


def _version_hash(scenario: Scenario) -> str:
    """Return the digest of ``scenario``'s version row, as its runs' start events name it."""
    return version_digest(
        scenario.id,
        scenario.config.name,
        scenario.version,
        scenario.config.to_json(),
        scenario.content_hash,
        len(scenario.bars),
        scenario.bars.dropped,
        scenario.created_at,
    )


def move_status(
    conn: sa.Connection, run_id: str, before: RunStatus, after: RunStatus, **values: object
) -> None:
    """Move run ``run_id`` from ``before`` to ``after`` (with ``values``), as the rules allow.

    The only place a run's status changes: the move must be one of
    ``TRANSITIONS`` (S-SVC-3: abandoned and complete are final), and the row
    must still be ``before`` when it is written (a run that another request
    moved meanwhile is not moved again).

    Raises
    ------
    ValueError
        If the move is not allowed, or the run is no longer ``before``.
    """
    if not can_transition(before, after):
        raise ValueError(f"a run cannot go from {before.value} to {after.value}")
    done = conn.execute(
        sa.update(scenario_runs)
        .where(scenario_runs.c.id == run_id, scenario_runs.c.status == before.value)
        .values(status=after.value, **values)
    )
    if done.rowcount != 1:
        raise ValueError(f"run {run_id} is no longer {before.value}")
