"""A run's status moves only as ``TRANSITIONS`` allows, and only where it still is (S-SVC-3).

``move_status`` is the one place the service changes a run's status: a move
the table does not allow is refused, and so is a move from a status the row no
longer has (another request moved it meanwhile); neither writes anything.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from tradeleague.formats.scenario import TRANSITIONS, RunStatus, can_transition
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.runs import move_status
from tradeleague.league.scenario.scenarios import Scenario
from tradeleague.league.scenario.tables import scenario_runs


def _status(service: ScenarioService, run_id: str) -> str:
    with service.read("t") as conn:
        return str(
            conn.execute(
                sa.select(scenario_runs.c.status).where(scenario_runs.c.id == run_id)
            ).scalar_one()
        )


def test_abandoned_and_complete_are_final() -> None:
    """S-SVC-3: an active run may complete or be abandoned; nothing leaves either end."""
    assert TRANSITIONS[RunStatus.ACTIVE] == {RunStatus.COMPLETE, RunStatus.ABANDONED}
    for end in (RunStatus.COMPLETE, RunStatus.ABANDONED):
        assert not any(can_transition(end, after) for after in RunStatus)
    assert not can_transition(RunStatus.ACTIVE, RunStatus.ACTIVE)


def test_move_status_refuses_what_the_table_refuses(
    service: ScenarioService, key: str, scenario: Scenario
) -> None:
    """S-SVC-3: an abandoned run is never revived nor completed; a stale move writes nothing."""
    run_id = str(service.create_run(service.authenticate(key), scenario.id)["id"])
    with service.write("t") as conn:
        move_status(conn, run_id, RunStatus.ACTIVE, RunStatus.ABANDONED)
    assert _status(service, run_id) == "abandoned"
    for after in (RunStatus.ACTIVE, RunStatus.COMPLETE):
        refused = pytest.raises(ValueError, match=f"cannot go from abandoned to {after.value}")
        with refused, service.write("t") as conn:
            move_status(conn, run_id, RunStatus.ABANDONED, after)
    # a request that still thinks the run is active (it was moved meanwhile) moves nothing
    with pytest.raises(ValueError, match="is no longer active"), service.write("t") as conn:
        move_status(conn, run_id, RunStatus.ACTIVE, RunStatus.COMPLETE)
    assert _status(service, run_id) == "abandoned"
