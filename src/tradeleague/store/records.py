"""The tables beside the log that publish what events say: checked against the events.

The scenario service keeps each run's row in ``scenario_runs`` (mutable state,
status, the results the public reads show) and appends what happened to the
log in the same transaction. A row can be edited behind the log's triggers;
`ScenarioRecords` collects what the events say while `verify` walks the chain
and then compares every row with it (DESIGN principle 4): a run's results must
be exactly its ``ScenarioRunCompleted`` payload, its account and scenario
those its ``ScenarioRunStarted`` names, a complete run must have completed in
the log, a published one must have been published there at its
``published_at``, and a
completed run's rows in ``scenario_run_equity`` must be exactly the equity
path its completion event holds (bar 0 first, no bar missing or extra). Each
scenario version's rows in ``scenario_bars`` must hash to the content hash the
version was provisioned under (``formats.scenario.ScenarioBars.content_hash``),
which every run's start event names.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import sqlalchemy as sa

from tradeleague.events import Event, canonical_json
from tradeleague.events.scenario import (
    SCENARIO_RUN_COMPLETED,
    SCENARIO_RUN_PUBLISHED,
    SCENARIO_RUN_STARTED,
)
from tradeleague.formats.scenario.bars import ScenarioBars
from tradeleague.store.rows import strict_loads

__all__ = ["ScenarioRecords", "completed_results"]

_RUNS = sa.table(
    "scenario_runs",
    sa.column("id", sa.String),
    sa.column("scenario_id", sa.String),
    sa.column("account", sa.String),
    sa.column("status", sa.String),
    sa.column("results", sa.Text),
    sa.column("published_at", sa.DateTime),
)

_EQUITY = sa.table(
    "scenario_run_equity",
    sa.column("run_id", sa.String),
    sa.column("idx", sa.Integer),
    sa.column("equity", sa.BigInteger),
)

_VERSIONS = sa.table(
    "scenario_versions",
    sa.column("id", sa.String),
    sa.column("content_hash", sa.String),
    sa.column("dropped", sa.Integer),
)

_BARS = sa.table(
    "scenario_bars",
    *(sa.column(name) for name in ("scenario_id", "symbol", "idx", "ts")),
    *(sa.column(name) for name in ("open", "high", "low", "close", "volume")),
)

_NOT_RESULTS = frozenset({"run", "equity"})


def _path_digest(values: list[str]) -> str:
    """Return the SHA-256 of an equity path (decimal micro-dollar integers, in bar order)."""
    return hashlib.sha256(",".join(values).encode("ascii")).hexdigest()


def completed_results(payload: dict[str, object]) -> str:
    """Return the canonical results text a ``ScenarioRunCompleted`` payload publishes."""
    return canonical_json({k: v for k, v in payload.items() if k not in _NOT_RESULTS})


class ScenarioRecords:
    """What the log says of every scenario run: results, equity path, whether published.

    A path is kept as its digest, so checking a store of many long runs holds
    one short string per run in memory, not every path.
    """

    def __init__(self) -> None:
        self.results: dict[str, str] = {}
        self.paths: dict[str, str] = {}
        self.published: dict[str, datetime] = {}
        self.started: dict[str, tuple[str, str]] = {}
        """Run -> (its scenario's id, its owner's account), as its start event says."""

    def see(self, event: Event) -> None:
        """Take note of ``event`` if it starts, completes or publishes a run."""
        if event.kind not in (SCENARIO_RUN_STARTED, SCENARIO_RUN_COMPLETED, SCENARIO_RUN_PUBLISHED):
            return
        payload = event.payload
        run = payload.get("run")
        if not isinstance(run, str):
            return
        if event.kind == SCENARIO_RUN_STARTED:
            self.started[run] = (str(payload.get("scenario")), str(payload.get("owner")))
        elif event.kind == SCENARIO_RUN_COMPLETED:
            self.results[run] = completed_results(payload)
            path = payload.get("equity")
            if isinstance(path, list):  # events written before the path rode on them lack it
                self.paths[run] = _path_digest([str(v) for v in path])
        else:
            self.published.setdefault(run, event.occurred_at)

    def compare(self, connection: sa.Connection) -> list[tuple[str, str, str]]:
        """Return ``(check, run id, detail)`` for every row that the events contradict."""
        out: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        query = sa.select(
            _RUNS.c.id,
            _RUNS.c.scenario_id,
            _RUNS.c.account,
            _RUNS.c.status,
            _RUNS.c.results,
            _RUNS.c.published_at,
        )
        for row in connection.execute(query):
            run = str(row.id)
            seen.add(run)
            out.extend(self._compare_start(run, str(row.scenario_id), str(row.account)))
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
            elif row.published_at is not None and not _same_moment(
                row.published_at, self.published[run]
            ):
                detail = "published_at differs from when the log published the run"
                out.append(("scenario_published", run, detail))
        for run in sorted(set(self.results) - seen):
            out.append(("scenario_missing", run, "the log completes a run that has no row"))
        out.extend(self._compare_paths(connection, seen))
        out.extend(_compare_bars(connection))
        return out

    def _compare_start(self, run: str, scenario: str, account: str) -> list[tuple[str, str, str]]:
        """Return a mismatch if the row's scenario or account is not what the run started with."""
        logged = self.started.get(run)
        if logged is None:
            return []  # runs started before their start event named them are not judged here
        out: list[tuple[str, str, str]] = []
        if scenario != logged[0]:
            out.append(("scenario_start", run, "scenario_id differs from the run's start event"))
        if account != logged[1]:
            out.append(("scenario_start", run, "account differs from the run's start event"))
        return out

    def _compare_paths(
        self, connection: sa.Connection, runs: set[str]
    ) -> list[tuple[str, str, str]]:
        """Return a mismatch for each completed run whose equity rows differ from its event."""
        out: list[tuple[str, str, str]] = []
        stored: dict[str, str] = {}
        query = sa.select(_EQUITY.c.run_id, _EQUITY.c.idx, _EQUITY.c.equity).order_by(
            _EQUITY.c.run_id, _EQUITY.c.idx
        )
        current: str | None = None
        values: list[str] = []
        gap = False
        for row in connection.execute(query):
            run = str(row.run_id)
            if run != current:
                if current is not None:
                    stored[current] = "" if gap else _path_digest(values)
                current, values, gap = run, [], False
            gap = gap or int(row.idx) != len(values)
            values.append(str(int(row.equity)))
        if current is not None:
            stored[current] = "" if gap else _path_digest(values)
        for run in sorted(set(stored) - runs):
            out.append(("scenario_equity", run, "equity rows of a run that has no row"))
        for run, logged in sorted(self.paths.items()):
            if run in runs and stored.get(run, _path_digest([])) != logged:
                detail = "the equity rows differ from the path the run's completion event holds"
                out.append(("scenario_equity", run, detail))
        return out


def _compare_bars(connection: sa.Connection) -> list[tuple[str, str, str]]:
    """Return a mismatch for each scenario version whose bars do not hash to its content hash."""
    out: list[tuple[str, str, str]] = []
    versions = connection.execute(
        sa.select(_VERSIONS.c.id, _VERSIONS.c.content_hash, _VERSIONS.c.dropped)
    )
    columns = [
        _BARS.c[n] for n in ("symbol", "idx", "ts", "open", "high", "low", "close", "volume")
    ]
    for version in versions.all():
        query = sa.select(*columns).where(_BARS.c.scenario_id == version.id)
        rows = [tuple(r) for r in connection.execute(query)]
        try:
            digest = ScenarioBars.from_rows(rows, int(version.dropped)).content_hash()
        except (ValueError, TypeError, IndexError, KeyError, ArithmeticError):
            digest = None
        if digest != version.content_hash:
            detail = "the bars do not hash to the content hash the scenario was provisioned under"
            out.append(("scenario_bars", str(version.id), detail))
    return out


def _same_moment(stored: object, logged: datetime) -> bool:
    """Return whether a stored time is the logged one (a naive stored time is UTC)."""
    if not isinstance(stored, datetime):
        return False
    if stored.tzinfo is None:
        stored = stored.replace(tzinfo=UTC)
    return stored == logged


def _canonical(text: str) -> str:
    try:
        return canonical_json(strict_loads(text))
    except (ValueError, TypeError):
        return text
