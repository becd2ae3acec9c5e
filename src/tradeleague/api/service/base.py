"""The service's foundation: store, clock, preset, transactions and scenario versions.

`ServiceBase` holds what every part of `ScenarioService` shares. Each call is
one short database transaction. A state change takes the database's write
lock for its run: PostgreSQL locks the run row (``SELECT ... FOR UPDATE``),
SQLite begins with ``BEGIN IMMEDIATE``; so steps on one run are serialised
across threads, workers and processes (S-SVC-2).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Final

import sqlalchemy as sa

from tradeleague.api.service.errors import ServiceError
from tradeleague.api.service.keys import Account
from tradeleague.api.service.rows import RUN, RUN_FOR_UPDATE, fast_sqlite, not_found
from tradeleague.api.service.scenarios import (
    Scenario,
    insert_version,
    latest_version,
    load_scenario,
)
from tradeleague.api.service.tables import scenario_versions
from tradeleague.clock import Clock
from tradeleague.formats.scenario import RunState, ScenarioBars, ScenarioConfig, ServicePreset
from tradeleague.formats.scenario.luck import RunRecord
from tradeleague.formats.weights.luck import TableLuck
from tradeleague.ids import new_id
from tradeleague.store import Store

__all__ = ["AGENT_ACCOUNT", "CACHE_LIMIT", "ServiceBase", "month_bounds", "run_stream"]

CACHE_LIMIT: Final = 10_000
"""The most entries a per-process cache (parsed run states, checked keys) holds."""

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


class ServiceBase:
    """The store, the clock, the preset, transactions and the scenario catalogue.

    Parameters
    ----------
    store
        The event store (its engine also holds the service's tables).
    clock
        Where "now" comes from (a `ReplayClock` in tests: S-SVC-3, S-SVC-5, S-SVC-1).
    preset
        Quotas, idle limit, idempotency window, checkout URL, queue bound and
        slippage tiers; the default is the seed's (`ServicePreset`).
    """

    def __init__(self, store: Store, clock: Clock, *, preset: ServicePreset | None = None) -> None:
        self.store = store
        self.clock = clock
        self.preset = preset if preset is not None else ServicePreset()
        self._sqlite = store.backend == "sqlite"
        if self._sqlite:
            fast_sqlite(store.engine)
        self._writer = threading.Lock()
        self._scenarios: dict[str, Scenario] = {}
        self._keys: dict[str, tuple[Account, float]] = {}
        self._states: dict[str, tuple[str, RunState]] = {}
        # each run's account and scenario (they never change), as its rows were read
        self._owners: dict[str, tuple[str, str]] = {}
        # completed runs' records (immutable once complete), read from the log once
        self._run_records: dict[str, tuple[RunRecord, tuple[dict[str, object], ...]]] = {}
        # leaderboards' ST-2 columns by (scenario, published runs): see `board_luck`
        self._lucks: dict[tuple[str, tuple[str, ...]], TableLuck] = {}
        self._lucks_lock = threading.Lock()

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
        if len(self._states) >= CACHE_LIMIT:
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

    def scenario_by_ref(self, ref: str) -> Scenario:
        """Return the scenario version ``ref`` names: its id, or a name's latest version.

        Raises
        ------
        ServiceError
            404 ``scenario_not_found`` when ``ref`` is neither.
        """
        try:
            return self.scenario(ref)
        except ServiceError:
            with self.read("read a scenario from") as conn:
                latest = latest_version(conn, ref)
            if latest is None:
                raise ServiceError(
                    404,
                    "scenario_not_found",
                    f"There is no scenario with the id or name {ref!r}; "
                    "GET /api/v1/scenarios lists them.",
                ) from None
            return self.scenario(str(latest.id))

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

    def _row(
        self, conn: sa.Connection, account: Account, run_id: str, lock: bool
    ) -> sa.Row[tuple[object, ...]]:
        row = conn.execute(RUN_FOR_UPDATE if lock else RUN, {"p_run": run_id}).one_or_none()
        if row is None or row.account != account.name:
            raise not_found(run_id)
        self.note_owner(row)
        return row

    def note_owner(self, row: sa.Row[tuple[object, ...]]) -> None:
        """Keep a run row's account and scenario: neither ever changes (see `owner`)."""
        owners = self._owners
        if len(owners) >= CACHE_LIMIT:
            owners.clear()
        owners[str(row.id)] = (str(row.account), str(row.scenario_id))

    def owner(self, run_id: str) -> tuple[str, str] | None:
        """Return the account and scenario of a run whose row was read, if kept."""
        return self._owners.get(run_id)
