"""Publishing and the public reads of the scenario service (S-API-5, S-SCO-2, S-SVC-4).

A run is private to its key until its owner publishes it; then its results
are readable without a key and it joins its scenario's leaderboard.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Final

import sqlalchemy as sa

from tradeleague.accounts import Account, Ledger, iso
from tradeleague.errors import ServiceError
from tradeleague.events import Event, EventKind
from tradeleague.events.scenario import SCENARIO_RUN_COMPLETED, SCENARIO_RUN_PUBLISHED
from tradeleague.formats.scenario import RunStatus, ScenarioResults
from tradeleague.formats.scenario.luck import RunRecord, scenario_luck
from tradeleague.formats.weights.luck import TableLuck
from tradeleague.league.scenario.book import RunBook, run_stream
from tradeleague.league.scenario.rows import loads
from tradeleague.league.scenario.scenarios import Catalogue
from tradeleague.league.scenario.tables import scenario_runs
from tradeleague.league.scenario.views import results_view
from tradeleague.store.records import completed_results
from tradeleague.store.schema import events

__all__ = ["LUCKS_KEPT", "Publisher"]


def _completion_of_run() -> sa.ColumnElement[bool]:
    return sa.and_(
        events.c.stream == sa.literal(run_stream("")) + scenario_runs.c.id,
        events.c.kind == SCENARIO_RUN_COMPLETED,
    )


def _results(payload: str) -> dict[str, object]:
    return loads(completed_results(loads(payload)))


def _logged_results(conn: sa.Connection, run_id: str) -> str | None:
    """Return the results text a run's completion event holds (``None`` before it completes)."""
    payload = conn.execute(
        sa.select(events.c.payload).where(
            events.c.stream == run_stream(run_id), events.c.kind == SCENARIO_RUN_COMPLETED
        )
    ).scalar()
    return None if payload is None else completed_results(loads(str(payload)))


class Publisher:
    """Publish completed runs and serve the public reads (S-API-5, S-SCO-2).

    Parameters
    ----------
    ledger
        The store, clock and transactions of the service.
    catalogue
        The scenario versions.
    book
        Reads an owner's run row.
    """

    def __init__(self, ledger: Ledger, catalogue: Catalogue, book: RunBook) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self.clock = ledger.clock
        self.catalogue = catalogue
        self.book = book
        # completed runs' records (immutable once complete), read from the log once
        self._run_records: dict[str, tuple[RunRecord, tuple[dict[str, object], ...]]] = {}
        # leaderboards' ST-2 columns by (scenario, published runs): see `board_luck`
        self._lucks: dict[tuple[str, tuple[str, ...]], TableLuck] = {}
        self._lucks_lock = threading.Lock()

    def publish(self, account: Account, run_id: str) -> dict[str, object]:
        """Opt a completed run into the public leaderboard (S-API-5, S-SCO-2)."""
        now = self.clock.now()
        with self.ledger.write("publish a run in") as conn:
            row = self.book.row(conn, account, run_id, lock=True)
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
                    conn, [Event(run_stream(run_id), SCENARIO_RUN_PUBLISHED, {"run": run_id}, now)]
                )
        return {"run_id": run_id, "published": True, "published_at": iso(published)}

    def public_run(self, run_id: str) -> dict[str, object]:
        """Return a published run's results, without a key (S-SVC-4); 404 otherwise."""
        with self.ledger.read("read a run from") as conn:
            row = conn.execute(
                sa.select(scenario_runs).where(scenario_runs.c.id == run_id)
            ).one_or_none()
            logged = None if row is None else _logged_results(conn, run_id)
        # only a run the log completed is public, with the results its events hold
        if row is None or row.published_at is None or logged is None:
            raise ServiceError(404, "run_not_found", f"There is no published run {run_id!r}.")
        extra = {"account": row.account, "published_at": iso(row.published_at)}
        results = ScenarioResults.from_payload(loads(logged))
        return results_view(run_id, str(row.scenario_id), str(row.status), results, extra)

    def published(self, scenario_id: str) -> list[tuple[str, str, ScenarioResults]]:
        """Return ``(run id, account, results)`` of the published runs, oldest first."""
        with self.ledger.read("read the leaderboard from") as conn:
            rows = conn.execute(
                sa.select(scenario_runs.c.id, scenario_runs.c.account, events.c.payload)
                .join(events, _completion_of_run())
                .where(
                    scenario_runs.c.scenario_id == scenario_id,
                    scenario_runs.c.published_at.is_not(None),
                )
                .order_by(scenario_runs.c.published_at, scenario_runs.c.id)
            ).all()
        # each run's results as its completion event holds them: an edited row changes nothing
        return [
            (str(r.id), str(r.account), ScenarioResults.from_payload(_results(str(r.payload))))
            for r in rows
        ]

    def published_counts(self) -> dict[str, int]:
        """Return how many published runs each scenario version has."""
        with self.ledger.read("read the leaderboard from") as conn:
            rows = conn.execute(
                sa.select(scenario_runs.c.scenario_id, sa.func.count())
                .where(scenario_runs.c.published_at.is_not(None))
                .group_by(scenario_runs.c.scenario_id)
            ).all()
        return {str(r[0]): int(r[1]) for r in rows}

    def run_record(self, run_id: str) -> tuple[RunRecord, list[dict[str, object]]]:
        """Return a run's record (equity path, trade count) and its fills, from its events.

        The fills are the ``OrderFilled`` payloads in order (bar index, bar time,
        whether forced, the fill); the equity path is the one its
        ``ScenarioRunCompleted`` event holds (empty for a run recorded before
        that event carried it). A completed run's record never changes, so it is
        read from the log once and kept (the leaderboard reads every published
        run's record on each request).
        """
        kept = self._run_records.get(run_id)
        if kept is not None:
            return kept[0], [dict(f) for f in kept[1]]
        fills: list[dict[str, object]] = []
        equity: tuple[int, ...] = ()
        completed = False
        for stored in self.store.events(run_stream(run_id)):
            event = stored.event
            if event.kind == EventKind.ORDER_FILLED:
                fills.append(dict(event.payload))
            elif event.kind == SCENARIO_RUN_COMPLETED:
                completed = True
                path = event.payload.get("equity")
                if isinstance(path, list):
                    equity = tuple(int(str(v)) for v in path)
        record = RunRecord(run_id=run_id, equity=equity, trades=len(fills))
        if completed:
            cache = self._run_records
            with _RECORDS_LOCK:
                while len(cache) >= _RECORDS_KEPT:
                    del cache[next(iter(cache))]
                cache[run_id] = (record, tuple(fills))
        return record, fills

    def board_luck(self, scenario_id: str, records: Sequence[RunRecord]) -> TableLuck:
        """Return the ST-2 columns of a leaderboard of ``records`` (`scenario_luck`).

        Rules: ST-1, ST-2. The bootstrap behind them costs hundreds of
        milliseconds and tens of MiB a board; a published run's record never
        changes and a scenario version never does, so the result is computed once
        per scenario and set of runs (one thread computes, concurrent readers of
        the same board wait for it) and the `LUCKS_KEPT` latest are kept.
        """
        key = (scenario_id, tuple(r.run_id for r in records))
        with self._lucks_lock:
            kept = self._lucks.pop(key, None)
            if kept is None:
                found = self.catalogue.scenario(scenario_id)
                kept = scenario_luck(scenario_id, list(records), found.bars, found.config)
            self._lucks[key] = kept  # the most recently read last
            while len(self._lucks) > LUCKS_KEPT:
                del self._lucks[next(iter(self._lucks))]
        return kept


LUCKS_KEPT: Final = 32
"""Leaderboards whose ST-2 columns a service keeps computed."""

_RECORDS_KEPT: Final = 2048
"""Completed runs' records kept in memory per service."""

_RECORDS_LOCK = threading.Lock()
