"""The scenario service: provisioning, keys, quotas and the run loop on the store.

One `ScenarioService` serves the REST API, the MCP server and the CLI, so
every interface gets the same rules. Each call is one short database
transaction. A state change takes the database's write lock for its run:
PostgreSQL locks the run row (``SELECT ... FOR UPDATE``), SQLite begins with
``BEGIN IMMEDIATE``; so steps on one run are serialised across threads,
workers and processes (S-SVC-2). A step writes the new run state and appends
its fills (and, at the end, the results) to the hash-chained event log in the
same transaction, so ``verify`` covers them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Final

import sqlalchemy as sa

from tradeleague.api.service.errors import ServiceError
from tradeleague.api.service.keys import Account, Tier, hash_key, new_key
from tradeleague.api.service.rows import (
    KEY_ACCOUNT,
    RUN,
    RUN_FOR_UPDATE,
    SAVE_STATE,
    TOUCH,
    abandoned,
    fast_sqlite,
    iso,
    loads,
    not_found,
    require_active,
    results_of,
)
from tradeleague.api.service.scenarios import (
    Scenario,
    insert_version,
    latest_version,
    load_scenario,
)
from tradeleague.api.service.tables import (
    api_accounts,
    api_keys,
    scenario_runs,
    scenario_versions,
)
from tradeleague.api.service.views import market_view, order_view, step_view
from tradeleague.clock import Clock
from tradeleague.events import Event, canonical_json, utc_iso
from tradeleague.formats.scenario import (
    RunState,
    RunStatus,
    ScenarioBars,
    ScenarioConfig,
    ScenarioResults,
    compute_results,
    queue_orders,
    start_run,
    step,
)
from tradeleague.ids import new_id
from tradeleague.sim import Order
from tradeleague.store import Store, account_opened, order_filled

__all__ = [
    "AGENT_ACCOUNT",
    "CHECKOUT_URL",
    "IDLE_LIMIT",
    "KEY_CACHE_SECONDS",
    "TOUCH_EVERY",
    "ScenarioService",
    "month_bounds",
    "run_stream",
]

IDLE_LIMIT: Final = timedelta(days=5)
"""A run with no activity for this long is abandoned (S-SVC-3).

Activity is any call on the run by its owner: ``trades``, ``step``,
``publish``, and also reading ``market``. An agent that reads the market while
deciding is working on the run; only a run nobody touches is abandoned.
"""

TOUCH_EVERY: Final = timedelta(minutes=1)
"""A market read records activity only if the last was this long ago.

Reads stay reads almost always (one write a minute per run at most); the
abandonment clock is then at most this much early relative to the last read
(4 days 23 h 59 min instead of 5 days), never late.
"""

KEY_CACHE_SECONDS: Final = 30.0
"""How long a process trusts a key it has checked (S-SVC-4).

The check is one indexed read, but on every request; a valid key's account is
cached for this many seconds, so revoking a key or changing its tier in
another process takes effect within this time. Unknown keys are never cached.
"""

_CACHE_LIMIT: Final = 10_000

CHECKOUT_URL: Final = "https://tradeleague.invalid/account/upgrade"
"""Where a free account over quota is sent to upgrade (S-SVC-5)."""

AGENT_ACCOUNT: Final = "agent"
"""The portfolio account name of a run inside its event stream."""


def run_stream(run_id: str) -> str:
    """Return the event stream of run ``run_id``."""
    return f"scenario-run/{run_id}"


def month_bounds(moment: datetime) -> tuple[datetime, datetime]:
    """Return the start of ``moment``'s UTC month and the start of the next (S-SVC-5)."""
    start = moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    nxt = (
        start.replace(year=start.year + 1, month=1)
        if start.month == 12
        else start.replace(month=start.month + 1)
    )
    return start, nxt


class ScenarioService:
    """Every operation of the scenario benchmark, on one store and one clock.

    Parameters
    ----------
    store
        The event store (its engine also holds the service's tables).
    clock
        Where "now" comes from (a `ReplayClock` in tests: S-SVC-3, S-SVC-5, S-SVC-1).
    checkout_url
        Where a free account over quota is sent.
    """

    def __init__(self, store: Store, clock: Clock, *, checkout_url: str = CHECKOUT_URL) -> None:
        self.store = store
        self.clock = clock
        self.checkout_url = checkout_url
        self._sqlite = store.backend == "sqlite"
        if self._sqlite:
            fast_sqlite(store.engine)
        self._writer = threading.Lock()
        self._scenarios: dict[str, Scenario] = {}
        self._keys: dict[str, tuple[Account, float]] = {}
        self._states: dict[str, tuple[str, RunState]] = {}

    @property
    def runs_inline(self) -> bool:
        """Return whether an event loop may call this service directly.

        True on SQLite: every call is a short local transaction behind one
        writer lock, so handing it to a worker thread costs more than the call
        and buys no parallelism. On PostgreSQL calls wait on the network and
        on row locks, so the REST layer runs them in worker threads.
        """
        return self._sqlite

    def _state(self, run_id: str, text: str) -> RunState:
        """Return the parsed state ``text`` of ``run_id``, reusing the last parse if unchanged.

        The cache is keyed by the stored text itself, so a state another
        process wrote is never mistaken for the cached one.
        """
        hit = self._states.get(run_id)
        if hit is not None and hit[0] == text:
            return hit[1]
        return RunState.from_json(text)

    def _remember(self, run_id: str, text: str, state: RunState) -> None:
        if state.done:
            self._states.pop(run_id, None)
            return
        if len(self._states) >= _CACHE_LIMIT:
            self._states.clear()
        self._states[run_id] = (text, state)

    # -- transactions --------------------------------------------------------------------

    @contextmanager
    def write(self, doing: str) -> Iterator[sa.Connection]:
        """Yield a connection in a writer's transaction (``BEGIN IMMEDIATE`` on SQLite).

        On SQLite the threads of this process also queue on a lock first, so
        they wait their turn instead of polling the database's busy handler.
        """
        guard = self._writer if self._sqlite else nullcontext()
        with guard, self.store.transaction(doing, write=True) as connection:
            yield connection

    @contextmanager
    def read(self, doing: str) -> Iterator[sa.Connection]:
        """Yield a connection in a read transaction."""
        with self.store.transaction(doing) as connection:
            yield connection

    # -- scenarios -----------------------------------------------------------------------

    def provision(self, config: ScenarioConfig, bars: ScenarioBars) -> Scenario:
        """Store ``bars`` under ``config`` as a new immutable version (S-SCN-1, S-SCN-2).

        Provisioning the same rules and the same bars as the latest version of
        that name returns that version instead of adding a copy.
        """
        if bars.symbols != config.symbols:
            raise ServiceError(
                422, "invalid_scenario", "The bars' symbols differ from the config's."
            )
        digest = bars.content_hash()
        now = self.clock.now()
        with self.write("provision a scenario in") as conn:
            latest = latest_version(conn, config.name)
            if (
                latest is not None
                and latest.content_hash == digest
                and latest.config == config.to_json()
            ):
                return self.scenario(str(latest.id))
            version = 1 if latest is None else int(latest.version) + 1
            scenario = Scenario(new_id(), version, config, bars, digest, now)
            insert_version(conn, scenario)
        self._scenarios[scenario.id] = scenario
        return scenario

    def scenario(self, scenario_id: str) -> Scenario:
        """Return a scenario version (its bars are cached: they never change).

        Raises
        ------
        ServiceError
            404 ``scenario_not_found``.
        """
        cached = self._scenarios.get(scenario_id)
        if cached is not None:
            return cached
        with self.read("read a scenario from") as conn:
            found = load_scenario(conn, scenario_id)
        if found is None:
            raise ServiceError(404, "scenario_not_found", f"There is no scenario {scenario_id!r}.")
        self._scenarios[scenario_id] = found
        return found

    def scenarios(self) -> list[dict[str, object]]:
        """Return every scenario version, newest name-version last."""
        with self.read("list scenarios in") as conn:
            ids = conn.execute(
                sa.select(scenario_versions.c.id).order_by(
                    scenario_versions.c.name, scenario_versions.c.version
                )
            ).scalars()
            found = [str(i) for i in ids]
        return [self.scenario(i).view() for i in found]

    # -- keys ----------------------------------------------------------------------------

    def create_key(self, account: str, tier: Tier) -> str:
        """Create (or re-tier) ``account`` and return a new API key for it, once."""
        name = account.strip()
        if not name or len(name) > 100 or not name.isprintable():
            raise ServiceError(422, "invalid_account", "An account name is 1-100 printable chars.")
        key = new_key()
        now = self.clock.now()
        with self.write("create an API key in") as conn:
            found = conn.execute(
                sa.select(api_accounts.c.tier).where(api_accounts.c.name == name)
            ).one_or_none()
            if found is None:
                conn.execute(
                    sa.insert(api_accounts).values(name=name, tier=tier.value, created_at=now)
                )
            elif found.tier != tier.value:
                conn.execute(
                    sa.update(api_accounts)
                    .where(api_accounts.c.name == name)
                    .values(tier=tier.value)
                )
            conn.execute(
                sa.insert(api_keys).values(
                    key_hash=hash_key(key), prefix=key[:10], account=name, created_at=now
                )
            )
        self._keys = {h: hit for h, hit in self._keys.items() if hit[0].name != name}
        return key

    def authenticate(self, key: str | None) -> Account:
        """Return the account ``key`` authorises (S-SVC-4).

        Raises
        ------
        ServiceError
            401 ``missing_api_key`` or ``invalid_api_key``.
        """
        if not key:
            raise ServiceError(401, "missing_api_key", "This endpoint needs an X-API-Key header.")
        digest = hash_key(key)
        moment = time.monotonic()
        hit = self._keys.get(digest)
        if hit is not None and moment < hit[1]:
            return hit[0]
        with self.read("check an API key in") as conn:
            row = conn.execute(KEY_ACCOUNT, {"p_hash": digest}).one_or_none()
        if row is None:
            raise ServiceError(401, "invalid_api_key", "The X-API-Key is not a valid key.")
        account = Account(str(row.name), Tier(row.tier))
        if len(self._keys) >= _CACHE_LIMIT:
            self._keys.clear()
        self._keys[digest] = (account, moment + KEY_CACHE_SECONDS)
        return account

    # -- runs ----------------------------------------------------------------------------

    def create_run(self, account: Account, scenario_id: str) -> dict[str, object]:
        """Start a run of ``scenario_id`` pinned to that version (S-API-5, S-SVC-5).

        Raises
        ------
        ServiceError
            404 ``scenario_not_found``; 402 ``payment_required`` (free, with
            ``checkout_url``) or 429 ``quota_exceeded`` (pro, with ``resets_at``).
        """
        scenario = self.scenario(scenario_id)
        now = self.clock.now()
        start, reset = month_bounds(now)
        limit = account.tier.monthly_runs
        run_id = new_id()
        state = start_run(scenario.config)
        with self.write("create a run in") as conn:
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
                        {"checkout_url": self.checkout_url},
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
            stream = run_stream(run_id)
            self.store.append_in(
                conn,
                [
                    Event(
                        stream,
                        "ScenarioRunStarted",
                        {
                            "run": run_id,
                            "scenario": scenario.id,
                            "content_hash": scenario.content_hash,
                            "owner": account.name,
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

    def _row(
        self, conn: sa.Connection, account: Account, run_id: str, lock: bool
    ) -> sa.Row[tuple[object, ...]]:
        row = conn.execute(RUN_FOR_UPDATE if lock else RUN, {"p_run": run_id}).one_or_none()
        if row is None or row.account != account.name:
            raise not_found(run_id)
        return row

    def _idle(self, row: sa.Row[tuple[object, ...]], now: datetime) -> bool:
        active_at: datetime = row.active_at
        return row.status == RunStatus.ACTIVE.value and now - active_at >= IDLE_LIMIT

    def _abandon(self, conn: sa.Connection, run_id: str, now: datetime) -> None:
        conn.execute(
            sa.update(scenario_runs)
            .where(scenario_runs.c.id == run_id)
            .values(status=RunStatus.ABANDONED.value)
        )
        self._states.pop(run_id, None)
        self.store.append_in(
            conn, [Event(run_stream(run_id), "ScenarioRunAbandoned", {"run": run_id}, now)]
        )

    @contextmanager
    def _mutate(
        self, account: Account, run_id: str, doing: str
    ) -> Iterator[tuple[sa.Connection, sa.Row[tuple[object, ...]], datetime]]:
        """Lock the run and yield it if active; an idle run is marked abandoned instead."""
        now = self.clock.now()
        with self.write(doing) as conn:
            row = self._row(conn, account, run_id, lock=True)
            if not self._idle(row, now):
                require_active(row)
                yield conn, row, now
                return
            self._abandon(conn, run_id, now)
        raise abandoned(run_id)

    def market(self, account: Account, run_id: str) -> dict[str, object]:
        """Return the run's current bar, recent history and portfolio (S-API-1).

        A read counts as activity on an active run (S-SVC-3, `TOUCH_EVERY`).
        """
        now = self.clock.now()
        with self.read("read a run from") as conn:
            row = self._row(conn, account, run_id, lock=False)
        if not self._idle(row, now) and row.status == RunStatus.ACTIVE.value:
            active_at: datetime = row.active_at
            if now - active_at >= TOUCH_EVERY:
                with self.write("record activity in") as conn:
                    conn.execute(TOUCH, {"p_run": run_id, "p_now": now})
        if self._idle(row, now):
            with self.write("abandon a run in") as conn:
                row = self._row(conn, account, run_id, lock=True)
                if self._idle(row, now):
                    self._abandon(conn, run_id, now)
            raise abandoned(run_id)
        if row.status == RunStatus.ABANDONED.value:
            raise abandoned(run_id)
        scenario = self.scenario(str(row.scenario_id))
        state = self._state(run_id, str(row.state))
        return market_view(run_id, str(row.status), state, scenario.bars, scenario.config)

    def trade(self, account: Account, run_id: str, orders: Sequence[Order]) -> dict[str, object]:
        """Queue market orders for the next step (S-API-2)."""
        with self._mutate(account, run_id, "queue orders in") as (conn, row, now):
            scenario = self.scenario(str(row.scenario_id))
            state = self._state(run_id, str(row.state))
            try:
                state = queue_orders(state, orders, scenario.config)
            except ValueError as exc:
                raise ServiceError(422, "invalid_order", str(exc)) from None
            text = state.to_json()
            conn.execute(SAVE_STATE, {"p_run": run_id, "p_state": text, "p_now": now})
        self._remember(run_id, text, state)
        return {
            "run_id": run_id,
            "index": state.index,
            "accepted": len(orders),
            "queued": [order_view(o) for o in state.queued],
        }

    def step(self, account: Account, run_id: str) -> dict[str, object]:
        """Advance the run one bar, filling queued orders at the next open (S-API-3, S-SVC-2)."""
        with self._mutate(account, run_id, "step a run in") as (conn, row, now):
            scenario = self.scenario(str(row.scenario_id))
            before = self._state(run_id, str(row.state))
            after, report = step(before, scenario.bars, scenario.config)
            text = after.to_json()
            stream = run_stream(run_id)
            bar_time = utc_iso(scenario.bars.timestamp(report.index))
            extra = {"run": run_id, "index": report.index, "bar_time": bar_time}
            batch = [
                order_filled(stream, AGENT_ACCOUNT, f, now, {**extra, "forced": report.liquidated})
                for f in report.fills
            ]
            if report.liquidated:
                batch.append(
                    Event(
                        stream, "PositionLiquidated", {**extra, "equity": str(report.equity)}, now
                    )
                )
            if after.done:
                results = compute_results(
                    after.equity,
                    periods_per_year=scenario.config.periods_per_year,
                    liquidated=after.liquidated,
                )
                payload = results.to_payload()
                batch.append(Event(stream, "ScenarioRunCompleted", {"run": run_id, **payload}, now))
                conn.execute(
                    sa.update(scenario_runs)
                    .where(scenario_runs.c.id == run_id)
                    .values(
                        state=text,
                        active_at=now,
                        status=RunStatus.COMPLETE.value,
                        results=canonical_json(payload),
                    )
                )
            else:
                conn.execute(SAVE_STATE, {"p_run": run_id, "p_state": text, "p_now": now})
            self.store.append_in(conn, batch)
        self._remember(run_id, text, after)
        return step_view(run_id, report, after, scenario.bars)

    def results(self, account: Account, run_id: str) -> dict[str, object]:
        """Return a completed run's metrics (S-API-4); 409 ``run_not_complete`` before."""
        with self.read("read a run from") as conn:
            row = self._row(conn, account, run_id, lock=False)
        return results_of(row, run_id)

    def publish(self, account: Account, run_id: str) -> dict[str, object]:
        """Opt a completed run into the public leaderboard (S-API-5, S-SCO-2)."""
        now = self.clock.now()
        with self.write("publish a run in") as conn:
            row = self._row(conn, account, run_id, lock=True)
            if row.status != RunStatus.COMPLETE.value:
                raise ServiceError(
                    409, "run_not_complete", "Only a completed run can be published."
                )
            published = row.published_at or now
            if row.published_at is None:
                conn.execute(
                    sa.update(scenario_runs)
                    .where(scenario_runs.c.id == run_id)
                    .values(published_at=now, active_at=now)
                )
                self.store.append_in(
                    conn, [Event(run_stream(run_id), "ScenarioRunPublished", {"run": run_id}, now)]
                )
        return {"run_id": run_id, "published": True, "published_at": iso(published)}

    def public_run(self, run_id: str) -> dict[str, object]:
        """Return a published run's results, without a key (S-SVC-4); 404 otherwise."""
        with self.read("read a run from") as conn:
            row = conn.execute(
                sa.select(scenario_runs).where(scenario_runs.c.id == run_id)
            ).one_or_none()
        if row is None or row.published_at is None:
            raise ServiceError(404, "run_not_found", f"There is no published run {run_id!r}.")
        return results_of(
            row, run_id, {"account": row.account, "published_at": iso(row.published_at)}
        )

    def published(self, scenario_id: str) -> list[tuple[str, str, ScenarioResults]]:
        """Return ``(run id, account, results)`` of the published runs, oldest first."""
        with self.read("read the leaderboard from") as conn:
            rows = conn.execute(
                sa.select(scenario_runs.c.id, scenario_runs.c.account, scenario_runs.c.results)
                .where(
                    scenario_runs.c.scenario_id == scenario_id,
                    scenario_runs.c.published_at.is_not(None),
                )
                .order_by(scenario_runs.c.published_at, scenario_runs.c.id)
            ).all()
        return [
            (str(r.id), str(r.account), ScenarioResults.from_payload(loads(str(r.results))))
            for r in rows
        ]

    def published_counts(self) -> dict[str, int]:
        """Return how many published runs each scenario version has."""
        with self.read("read the leaderboard from") as conn:
            rows = conn.execute(
                sa.select(scenario_runs.c.scenario_id, sa.func.count())
                .where(scenario_runs.c.published_at.is_not(None))
                .group_by(scenario_runs.c.scenario_id)
            ).all()
        return {str(r[0]): int(r[1]) for r in rows}

    def sweep_abandoned(self) -> int:
        """Mark every active run idle for `IDLE_LIMIT` abandoned; return how many (S-SVC-3)."""
        now = self.clock.now()
        with self.write("sweep idle runs in") as conn:
            ids = (
                conn.execute(
                    sa.select(scenario_runs.c.id)
                    .where(
                        scenario_runs.c.status == RunStatus.ACTIVE.value,
                        scenario_runs.c.active_at <= now - IDLE_LIMIT,
                    )
                    .with_for_update()
                )
                .scalars()
                .all()
            )
            for run_id in ids:
                self._abandon(conn, str(run_id), now)
        return len(ids)
