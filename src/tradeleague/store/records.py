"""The tables beside the log that publish what events say: checked against the events.

The scenario service keeps each run's row in ``scenario_runs`` (mutable state,
status, the results the public reads show) and appends what happened to the
log in the same transaction. A row can be edited behind the log's triggers;
`ScenarioRecords` collects what the events say while `verify` walks the chain
and then compares every row with it (DESIGN principle 4): a run's results must
be exactly its ``ScenarioRunCompleted`` payload, a complete run must have
completed in the log, a published one must have been published there.
"""

from __future__ import annotations

import sqlalchemy as sa

from tradeleague.events import Event, canonical_json
from tradeleague.events.scenario import SCENARIO_RUN_COMPLETED, SCENARIO_RUN_PUBLISHED
from tradeleague.store.rows import strict_loads

__all__ = ["ScenarioRecords", "completed_results"]

_RUNS = sa.table(
    "scenario_runs",
    sa.column("id", sa.String),
    sa.column("status", sa.String),
    sa.column("results", sa.Text),
    sa.column("published_at", sa.DateTime),
)

_NOT_RESULTS = frozenset({"run", "equity"})


def completed_results(payload: dict[str, object]) -> str:
    """Return the canonical results text a ``ScenarioRunCompleted`` payload publishes."""
    return canonical_json({k: v for k, v in payload.items() if k not in _NOT_RESULTS})


class ScenarioRecords:
    """What the log says of every scenario run: its results and whether it was published."""

    def __init__(self) -> None:
        self.results: dict[str, str] = {}
        self.published: set[str] = set()

    def see(self, event: Event) -> None:
        """Take note of ``event`` if it completes or publishes a run."""
        if event.kind not in (SCENARIO_RUN_COMPLETED, SCENARIO_RUN_PUBLISHED):
            return
        payload = event.payload
        run = payload.get("run")
        if not isinstance(run, str):
            return
        if event.kind == SCENARIO_RUN_COMPLETED:
            self.results[run] = completed_results(payload)
        else:
            self.published.add(run)

    def compare(self, connection: sa.Connection) -> list[tuple[str, str, str]]:
        """Return ``(check, run id, detail)`` for every row that the events contradict."""
        out: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        query = sa.select(_RUNS.c.id, _RUNS.c.status, _RUNS.c.results, _RUNS.c.published_at)
        for row in connection.execute(query):
            run = str(row.id)
            seen.add(run)
            logged = self.results.get(run)
            if row.results is not None:
                kept = _canonical(str(row.results))
                if logged is None:
                    out.append(
                        ("scenario_results", run, "results stored but the run never completed")
                    )
                elif kept != logged:
                    out.append(
                        ("scenario_results", run, "stored results differ from the run's events")
                    )
            elif logged is not None:
                out.append(("scenario_results", run, "the run completed but no results are stored"))
            if (row.status == "complete") != (logged is not None):
                detail = f"status {row.status!r} but the log {'has' if logged else 'lacks'} its end"
                out.append(("scenario_status", run, detail))
            if (row.published_at is not None) != (run in self.published):
                state = "published" if row.published_at is not None else "not published"
                out.append(("scenario_published", run, f"the row says {state}; the log disagrees"))
        for run in sorted(set(self.results) - seen):
            out.append(("scenario_missing", run, "the log completes a run that has no row"))
        return out


def _canonical(text: str) -> str:
    try:
        return canonical_json(strict_loads(text))
    except (ValueError, TypeError):
        return text
