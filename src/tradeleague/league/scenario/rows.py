"""Prepared statements and row helpers of the scenario service.

The hot statements (read a run, save a run's state, append to its equity
path) are built once here with bound parameters, so a request neither rebuilds a SQL
expression nor recomputes its cache key; SQLAlchemy reuses the compiled form.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Final

import sqlalchemy as sa

from tradeleague.errors import ServiceError
from tradeleague.formats.scenario import RunStatus, ScenarioResults
from tradeleague.league.scenario.tables import scenario_run_equity, scenario_runs
from tradeleague.league.scenario.views import results_view

__all__ = [
    "APPEND_EQUITY",
    "EQUITY_PATH",
    "RUN",
    "RUN_FOR_UPDATE",
    "SAVE_STATE",
    "STEP_STATE",
    "TOUCH",
    "abandoned",
    "loads",
    "not_found",
    "require_active",
    "results_of",
    "span",
]

RUN: Final = sa.select(scenario_runs).where(scenario_runs.c.id == sa.bindparam("p_run"))
"""A run row by id (parameter ``p_run``)."""

RUN_FOR_UPDATE: Final = RUN.with_for_update()
"""The same, locking the row on PostgreSQL (SQLite holds the database lock instead)."""

SAVE_STATE: Final = (
    sa.update(scenario_runs)
    .where(scenario_runs.c.id == sa.bindparam("p_run"))
    .values(state=sa.bindparam("p_state"), active_at=sa.bindparam("p_now"))
)
"""Store a run's new state and mark it active (parameters ``p_run``, ``p_state``, ``p_now``)."""

STEP_STATE: Final = (
    sa.update(scenario_runs)
    .where(
        scenario_runs.c.id == sa.bindparam("p_run"),
        scenario_runs.c.status == RunStatus.ACTIVE.value,
        scenario_runs.c.state == sa.bindparam("p_before"),
        scenario_runs.c.active_at > sa.bindparam("p_cutoff"),
    )
    .values(state=sa.bindparam("p_state"), active_at=sa.bindparam("p_now"))
)
"""Store a run's next state only if it is active, not idle and still holds ``p_before``.

The step's write without a read first: one row changed means the state the
service kept for the run was the stored one, and the run could step
(``p_cutoff``: now minus the idle limit; a run last active then or before is
idle, S-SVC-3). No row changed means it must be read after all.
"""

APPEND_EQUITY: Final = sa.insert(scenario_run_equity).values(
    run_id=sa.bindparam("p_run"), idx=sa.bindparam("p_idx"), equity=sa.bindparam("p_equity")
)
"""Append a run's equity at one bar (parameters ``p_run``, ``p_idx``, ``p_equity``)."""

EQUITY_PATH: Final = (
    sa.select(scenario_run_equity.c.equity)
    .where(scenario_run_equity.c.run_id == sa.bindparam("p_run"))
    .order_by(scenario_run_equity.c.idx)
)
"""A run's equity path, bar 0 first (parameter ``p_run``)."""

TOUCH: Final = (
    sa.update(scenario_runs)
    .where(
        scenario_runs.c.id == sa.bindparam("p_run"),
        scenario_runs.c.status == RunStatus.ACTIVE.value,
        scenario_runs.c.active_at < sa.bindparam("p_now"),
    )
    .values(active_at=sa.bindparam("p_now"))
)
"""Record a read as activity on an active run (S-SVC-3); never moves the time back."""


def loads(text: str) -> dict[str, object]:
    """Parse a stored JSON object."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("stored results are not an object")
    return value


def not_found(run_id: str) -> ServiceError:
    """Return the 404 of a run the key cannot see."""
    return ServiceError(404, "run_not_found", f"There is no run {run_id!r} for this API key.")


def span(length: timedelta) -> str:
    """Return ``length`` in words: ``5 days``, ``1 day``, ``12 hours`` or ``90 minutes``."""
    for unit, name in ((timedelta(days=1), "day"), (timedelta(hours=1), "hour")):
        if length >= unit and not length % unit:
            count = length // unit
            return f"{count} {name}{'' if count == 1 else 's'}"
    return f"{length / timedelta(minutes=1):g} minutes"


def abandoned(run_id: str, idle_limit: timedelta) -> ServiceError:
    """Return the 409 of a run abandoned after ``idle_limit`` without activity (S-SVC-3)."""
    return ServiceError(
        409,
        "run_abandoned",
        f"Run {run_id} had no activity for {span(idle_limit)} and was abandoned.",
    )


def require_active(row: sa.Row[tuple[object, ...]], idle_limit: timedelta) -> None:
    """Raise unless the run can still trade and step."""
    if row.status == RunStatus.ABANDONED.value:
        raise abandoned(str(row.id), idle_limit)
    if row.status == RunStatus.COMPLETE.value:
        raise ServiceError(409, "run_complete", "The run is over; fetch its results.")


def results_of(
    row: sa.Row[tuple[object, ...]], run_id: str, extra: dict[str, object] | None = None
) -> dict[str, object]:
    """Return a completed run's results view; 409 ``run_not_complete`` before."""
    if row.status != RunStatus.COMPLETE.value or row.results is None:
        raise ServiceError(409, "run_not_complete", "Results are ready when the run has completed.")
    results = ScenarioResults.from_payload(loads(str(row.results)))
    return results_view(run_id, str(row.scenario_id), str(row.status), results, extra)
