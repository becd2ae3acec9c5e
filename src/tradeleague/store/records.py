"""The tables beside the log that publish what events say: re-derived from the events.

The scenario service keeps each run's row in ``scenario_runs`` (its state:
cash, positions, queued orders; its status, results and publication), its
equity path in ``scenario_run_equity`` and each scenario version in
``scenario_versions`` and ``scenario_bars``, and appends what happened to the
log in the same transaction. A row can be edited behind the log's triggers,
or with them dropped. `ScenarioRecords` replays every run while `verify`
walks the chain (`tradeleague.store.run_replay`: its opening cash, its
queued and cancelled orders, the scenario's bars and the deterministic
simulator) and then compares every row, column by column, with what the
replay ends on (DESIGN principle 4): a run's account, scenario and creation
time are its start event's; its status is complete or abandoned exactly when
the log says so; its state (bar, cash, positions, queue, liquidation) is
the replayed one; its equity rows are the replayed path, bar 0 first; its
results are the ones that path gives, and ``published_at`` is when the log
published it. Each scenario version's bars must hash to its content hash
(``formats.scenario.ScenarioBars.content_hash``), and its row must be the one
every run of it started on (the start event's ``version_hash``).

Each mismatch names the table, the row and the column. The only column not
derived is ``scenario_runs.active_at``: reading a run's market marks it
active without an event (it only decides when an idle run is abandoned).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from tradeleague.events import Event, EventKind, canonical_json
from tradeleague.events.scenario import (
    SCENARIO_ORDER_CANCELLED,
    SCENARIO_ORDERS_QUEUED,
    SCENARIO_RUN_ABANDONED,
    SCENARIO_RUN_COMPLETED,
    SCENARIO_RUN_PUBLISHED,
    SCENARIO_RUN_STARTED,
)
from tradeleague.formats.scenario import RunState, ScenarioBars, ScenarioConfig, version_digest
from tradeleague.store.rows import strict_loads
from tradeleague.store.run_replay import RunReplay, Version

__all__ = ["Found", "ScenarioRecords", "completed_results"]

_RUNS = sa.table(
    "scenario_runs",
    *(sa.column(name) for name in ("id", "scenario_id", "account", "status", "state")),
    sa.column("results", sa.Text),
    sa.column("published_at", sa.DateTime),
    sa.column("created_at", sa.DateTime),
)

_EQUITY = sa.table(
    "scenario_run_equity",
    sa.column("run_id", sa.String),
    sa.column("idx", sa.Integer),
    sa.column("equity", sa.BigInteger),
)

_VERSION_COLUMNS = ("id", "name", "version", "config", "content_hash", "bars", "dropped")
_VERSIONS = sa.table(
    "scenario_versions",
    *(sa.column(name) for name in _VERSION_COLUMNS),
    sa.column("created_at", sa.DateTime),
)

_BAR_COLUMNS = ("symbol", "idx", "ts", "open", "high", "low", "close", "volume")
_BARS = sa.table("scenario_bars", sa.column("scenario_id"), *map(sa.column, _BAR_COLUMNS))

_RUN_KINDS = frozenset(
    {
        EventKind.ACCOUNT_OPENED.value,
        EventKind.ORDER_FILLED.value,
        EventKind.POSITION_LIQUIDATED.value,
        SCENARIO_ORDERS_QUEUED,
        SCENARIO_ORDER_CANCELLED,
        SCENARIO_RUN_COMPLETED,
        SCENARIO_RUN_ABANDONED,
        SCENARIO_RUN_PUBLISHED,
    }
)
"""The kinds a run's stream holds after its start event."""

_NOT_RESULTS = frozenset({"run", "equity"})


def completed_results(payload: dict[str, object]) -> str:
    """Return the canonical results text a ``ScenarioRunCompleted`` payload publishes."""
    return canonical_json({k: v for k, v in payload.items() if k not in _NOT_RESULTS})


@dataclass(frozen=True, slots=True)
class Found:
    """One row the events contradict: its table, key and column, and a sentence."""

    check: str
    table: str
    key: str
    column: str
    detail: str
    seq: int | None = None


class ScenarioRecords:
    """Every scenario run as its events re-derive it, and the rows compared with that.

    Parameters
    ----------
    connection
        The verify transaction's connection: a scenario version is read from
        it once, when the first run of it starts in the walk.
    """

    def __init__(self, connection: sa.Connection) -> None:
        self._connection = connection
        self._versions: dict[str, Version | None] = {}
        self.runs: dict[str, RunReplay] = {}
        self._streams: dict[str, RunReplay] = {}

    def see(self, seq: int, event: Event) -> None:
        """Fold ``event`` into its run's replay if it belongs to a scenario run."""
        kind = event.kind
        if kind == SCENARIO_RUN_STARTED:
            self._start(event)
            return
        if kind not in _RUN_KINDS:
            return
        replay = self._streams.get(event.stream)
        if replay is not None:
            replay.see(seq, event)

    def _start(self, event: Event) -> None:
        payload = event.payload
        run, scenario = payload.get("run"), payload.get("scenario")
        if not isinstance(run, str) or not isinstance(scenario, str):
            return
        digest = payload.get("version_hash")
        replay = RunReplay(
            run=run,
            scenario=scenario,
            owner=str(payload.get("owner")),
            started_at=event.occurred_at,
            version_hash=digest if isinstance(digest, str) else None,
            version=self._version(scenario),
        )
        self.runs[run] = replay
        self._streams[event.stream] = replay

    def _version(self, scenario_id: str) -> Version | None:
        if scenario_id not in self._versions:
            row = self._connection.execute(
                sa.select(_VERSIONS).where(_VERSIONS.c.id == scenario_id)
            ).one_or_none()
            self._versions[scenario_id] = None if row is None else self._load(row)
        return self._versions[scenario_id]

    def _load(self, row: sa.Row[tuple[object, ...]]) -> Version:
        version_id = str(row.id)
        query = sa.select(*(_BARS.c[n] for n in _BAR_COLUMNS)).where(
            _BARS.c.scenario_id == version_id
        )
        rows = [tuple(r) for r in self._connection.execute(query)]
        bars: ScenarioBars | None
        try:
            bars = ScenarioBars.from_rows(rows, int(str(row.dropped)))
            digest = bars.content_hash()
            # every stored value is one the hash covers (a symbol's time is the first symbol's)
            whole = sorted(bars.rows()) == sorted(rows)
        except (ValueError, TypeError, IndexError, KeyError, ArithmeticError):
            bars, digest, whole = None, None, False
        if digest != row.content_hash or not whole:
            bars = None  # reported by `compare`; no run is replayed on bars that are not its own
        try:
            config: ScenarioConfig | None = ScenarioConfig.from_json(str(row.config))
        except (ValueError, TypeError, KeyError):
            config = None
        try:
            row_digest = version_digest(
                version_id,
                str(row.name),
                int(str(row.version)),
                str(row.config),
                str(row.content_hash),
                int(str(row.bars)),
                int(str(row.dropped)),
                _utc(row.created_at),
            )
        except (ValueError, TypeError):
            row_digest = ""
        rules = None if config is None else config.order_rules()
        return Version(version_id, row_digest, bars, config, rules)

    def compare(self, connection: sa.Connection) -> list[Found]:
        """Return every row the events contradict: versions and bars first, then runs."""
        out = self._compare_versions(connection)
        seen: set[str] = set()
        for row in connection.execute(sa.select(_RUNS).order_by(_RUNS.c.id)):
            run = str(row.id)
            seen.add(run)
            out.extend(self._compare_run(run, row))
        for run in sorted(set(self.runs) - seen):
            detail = f"the log starts run {run}, which has no row in scenario_runs"
            out.append(Found("scenario_missing", "scenario_runs", run, "id", detail))
        out.extend(self._compare_paths(connection, seen))
        return out

    def _compare_versions(self, connection: sa.Connection) -> list[Found]:
        out: list[Found] = []
        rows = connection.execute(sa.select(_VERSIONS).order_by(_VERSIONS.c.id)).all()
        for row in rows:
            version_id = str(row.id)
            if version_id not in self._versions:
                self._versions[version_id] = self._load(row)
            version = self._versions[version_id]
            if version is None or version.bars is None:
                detail = (
                    f"the bars of scenario {version_id} do not hash to the content hash it was "
                    "provisioned under"
                )
                out.append(Found("scenario_bars", "scenario_bars", version_id, "*", detail))
            out.extend(_own_columns(row, version))
        for version_id in sorted({r.scenario for r in self.runs.values() if r.replayed}):
            version = self._versions.get(version_id)
            if version is None:
                continue  # the runs name the scenario that has no row
            expected = {r.version_hash for r in self.runs.values() if r.scenario == version_id}
            if expected - {None} != {version.digest}:
                detail = (
                    f"scenario_versions row {version_id} differs from the version its runs "
                    "started on (its name, number, rules, content hash, bar counts or creation "
                    "time was changed)"
                )
                out.append(Found("scenario_version", "scenario_versions", version_id, "*", detail))
        return out

    def _compare_run(self, run: str, row: sa.Row[tuple[object, ...]]) -> Iterator[Found]:
        replay = self.runs.get(run)

        def found(check: str, column: str, detail: str, seq: int | None = None) -> Found:
            return Found(check, "scenario_runs", run, column, detail, seq)

        if replay is None:
            yield found("scenario_start", "id", "the log never started a run with this id")
            return
        if str(row.scenario_id) != replay.scenario:
            yield found("scenario_start", "scenario_id", "differs from the run's start event")
        elif self._versions.get(replay.scenario) is None:
            yield found("scenario_start", "scenario_id", "names a scenario that has no version row")
        if str(row.account) != replay.owner:
            yield found("scenario_start", "account", "differs from the run's start event")
        if not _same_moment(row.created_at, replay.started_at):
            yield found("scenario_start", "created_at", "differs from when the log started the run")
        stored = _state(str(row.state))
        beyond = None if stored is None else replay.finish(stored.index)
        if beyond is not None:
            yield found("scenario_state", "state", beyond)
        if replay.problem is not None:
            detail = (
                "the log's record of the run contradicts its replay (the row's state was "
                f"changed behind the log before a step used it): {replay.problem.detail}"
            )
            yield found("scenario_replay", "state", detail, replay.problem.seq or None)
        if str(row.status) != replay.status.value:
            detail = f"the row says {str(row.status)!r}, the log {replay.status.value!r}"
            yield found("scenario_status", "status", detail)
        if replay.live and replay.state is not None:
            if stored is None:
                yield found("scenario_state", "state", "the stored state is not a run state")
            else:
                for part, kept, derived in _state_parts(stored, replay.state):
                    if kept != derived:
                        detail = f"the state's {part} is {kept}, its events give {derived}"
                        yield found("scenario_state", "state", detail)
                        break
        yield from self._compare_results(run, row, replay)
        logged = replay.published_at
        if (row.published_at is not None) != (logged is not None):
            state = "published" if row.published_at is not None else "not published"
            yield found(
                "scenario_published", "published_at", f"the row says {state}; the log does not"
            )
        elif logged is not None and not _same_moment(row.published_at, logged):
            detail = "differs from when the log published the run"
            yield found("scenario_published", "published_at", detail)

    def _compare_results(
        self, run: str, row: sa.Row[tuple[object, ...]], replay: RunReplay
    ) -> Iterator[Found]:
        logged = replay.results
        if row.results is not None:
            kept = _canonical(str(row.results))
            if logged is None:
                detail = "results stored but the run never completed"
                yield Found("scenario_results", "scenario_runs", run, "results", detail)
            elif kept != logged:
                detail = "stored results differ from the ones its events give"
                yield Found("scenario_results", "scenario_runs", run, "results", detail)
        elif logged is not None:
            detail = "the run completed but no results are stored"
            yield Found("scenario_results", "scenario_runs", run, "results", detail)

    def _compare_paths(self, connection: sa.Connection, runs: set[str]) -> list[Found]:
        """Compare each run's equity rows with its replayed path, naming the first bad bar."""
        out: list[Found] = []
        query = sa.select(_EQUITY.c.run_id, _EQUITY.c.idx, _EQUITY.c.equity).order_by(
            _EQUITY.c.run_id, _EQUITY.c.idx
        )
        current: str | None = None
        values: list[tuple[int, int]] = []
        checked: set[str] = set()
        for row in connection.execute(query):
            run = str(row.run_id)
            if run != current:
                if current is not None:
                    out.extend(self._compare_path(current, values, runs))
                    checked.add(current)
                current, values = run, []
            values.append((int(row.idx), int(row.equity)))
        if current is not None:
            out.extend(self._compare_path(current, values, runs))
            checked.add(current)
        for run in sorted(runs - checked):
            out.extend(self._compare_path(run, [], runs))
        return out

    def _compare_path(self, run: str, rows: list[tuple[int, int]], runs: set[str]) -> list[Found]:
        replay = self.runs.get(run)
        if run not in runs:
            detail = "equity rows of a run that has no row in scenario_runs"
            return [Found("scenario_equity", "scenario_run_equity", run, "run_id", detail)]
        if replay is None or replay.problem is not None or not replay.path:
            # a stopped replay's problem is reported on its run row; a run started before its
            # orders were recorded (or on a scenario that is gone) is known by its end alone
            return []
        path = replay.path
        for i in range(max(len(rows), len(path))):
            if i >= len(path):
                detail = f"row at idx {rows[i][0]} is past the {len(path)} bars its events give"
                column = "idx"
            elif i >= len(rows):
                detail = f"the row of bar {i} is missing (its events give {path[i]})"
                column = "idx"
            elif rows[i][0] != i:
                detail = f"the rows skip from bar {i - 1} to idx {rows[i][0]}"
                column = "idx"
            elif rows[i][1] != path[i]:
                detail = f"equity at bar {i} is {rows[i][1]}, its events give {path[i]}"
                column = "equity"
            else:
                continue
            return [Found("scenario_equity", "scenario_run_equity", run, column, detail)]
        return []


def _own_columns(row: sa.Row[tuple[object, ...]], version: Version | None) -> Iterator[Found]:
    """Yield the columns of a version row that contradict its own rules or bars."""
    if version is None:
        return
    version_id = str(row.id)
    if version.config is not None and str(row.name) != version.config.name:
        detail = f"the name {row.name!r} is not the one its rules hold ({version.config.name!r})"
        yield Found("scenario_version", "scenario_versions", version_id, "name", detail)
    if version.bars is not None and str(row.bars) != str(len(version.bars)):
        detail = f"says {row.bars} bars; its bars hold {len(version.bars)}"
        yield Found("scenario_version", "scenario_versions", version_id, "bars", detail)


def _state(text: str) -> RunState | None:
    try:
        return RunState.from_json(text)
    except (ValueError, TypeError, KeyError):
        return None


def _state_parts(stored: RunState, derived: RunState) -> Iterator[tuple[str, object, object]]:
    """Yield ``(part, stored, derived)`` for each part of a run's state, in reading order."""
    yield "bar", stored.index, derived.index
    yield "cash", stored.portfolio.cash, derived.portfolio.cash
    yield "positions", stored.portfolio.state()["positions"], derived.portfolio.state()["positions"]
    queued = [[o.symbol, o.side.value, str(o.qty)] for o in stored.queued]
    yield "queued orders", queued, [[o.symbol, o.side.value, str(o.qty)] for o in derived.queued]
    yield "liquidated flag", stored.liquidated, derived.liquidated
    yield "done flag", stored.done, derived.done
    yield "text", stored.to_json(), derived.to_json()


def _utc(value: object) -> datetime:
    if not isinstance(value, datetime):
        raise TypeError("not a time")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _same_moment(stored: object, logged: datetime) -> bool:
    """Return whether a stored time is the logged one (a naive stored time is UTC)."""
    try:
        return _utc(stored) == logged
    except TypeError:
        return False


def _canonical(text: str) -> str:
    try:
        return canonical_json(strict_loads(text))
    except (ValueError, TypeError):
        return text
