"""The runs as this process last saw them: parsed states, owners, and a run's row by key.

`RunBook` is what the parts of `ScenarioService` that read and write runs
share. What it keeps is never trusted over the database: a kept state is
used only while the stored text is the same (`RunBook.state`), or by an
update that checks the row still holds it (`steps`).
"""

from __future__ import annotations

from typing import Final

import sqlalchemy as sa

from tradeleague.accounts import CACHE_LIMIT, Account
from tradeleague.events.streams import season_stream
from tradeleague.formats.scenario import RunState
from tradeleague.league.scenario.rows import RUN, RUN_FOR_UPDATE, not_found

__all__ = ["AGENT_ACCOUNT", "RunBook", "run_stream"]

AGENT_ACCOUNT: Final = "agent"
"""The portfolio account name of a run inside its event stream."""


RUN_KIND = "scenario-run"
"""What every scenario run's stream starts with."""


def run_stream(run_id: str) -> str:
    """Return the event stream of run ``run_id`` (``scenario-run/<id>``: the one stream rule)."""
    return season_stream(RUN_KIND, run_id)


class RunBook:
    """Runs' parsed states and owners kept by this process, and reading a run's row."""

    def __init__(self) -> None:
        self.states: dict[str, tuple[str, RunState]] = {}
        """Each unfinished run's last state as text and parsed, as this process last saw it."""
        # each run's account and scenario (they never change), as its rows were read
        self._owners: dict[str, tuple[str, str]] = {}

    def state(self, run_id: str, text: str) -> RunState:
        """Return the parsed state ``text`` of ``run_id``, reusing the last parse if unchanged.

        The cache is keyed by the stored text itself, so a state another
        process wrote is never mistaken for the cached one.
        """
        hit = self.states.get(run_id)
        if hit is not None and hit[0] == text:
            return hit[1]
        return RunState.from_json(text)

    def remember(self, run_id: str, text: str, state: RunState) -> None:
        """Keep ``state`` (stored as ``text``) as run ``run_id``'s latest; a finished one is not."""
        if state.done:
            self.states.pop(run_id, None)
            return
        if len(self.states) >= CACHE_LIMIT:
            self.states.clear()
        self.states[run_id] = (text, state)

    def forget(self, run_id: str) -> None:
        """Drop the state kept for ``run_id`` (the run is over)."""
        self.states.pop(run_id, None)

    def kept(self, run_id: str) -> tuple[str, RunState] | None:
        """Return the state kept for ``run_id`` (as text and parsed), if any."""
        return self.states.get(run_id)

    def row(
        self, conn: sa.Connection, account: Account, run_id: str, lock: bool
    ) -> sa.Row[tuple[object, ...]]:
        """Return the row of ``account``'s run ``run_id`` (locked if ``lock``).

        Raises
        ------
        ServiceError
            404 ``run_not_found`` for another account's run or an unknown id.
        """
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
