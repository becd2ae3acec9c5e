"""Every column of every scenario table is re-derived from events: each edit is named (C-4).

One store is built once (a complete, published run with fills; an active run
with fills, a cancel and orders still queued; an abandoned run; a second
scenario version), and each case edits one column of one row of a copy of
its SQLite file, with that table's triggers dropped. `verify` must then fail
and name the table, the row and the column (issue 24 item 2; S-SCN-2 for the
bars, S-FIL-*, S-LIQ-1 and S-SCO-1 for what a replay re-derives).

The columns come from the database's own schema: a column added later that
is neither tampered here nor listed in `NOT_DERIVED` with its reason fails
`test_every_scenario_column_is_tampered_or_explained`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from conftest import make_service, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.scenario.tables import metadata as scenario_tables
from tradeleague.money import MICRO, Qty
from tradeleague.sim import Order, Side
from tradeleague.store import open_store, verify

FAR = "01ZZZZZZZZZZZZZZZZZZZZZZZZ"
"""An id no row or event holds."""

NOT_DERIVED = {
    ("scenario_runs", "active_at"): "reading a run's market marks it active without an event "
    "(S-SVC-3): the time only decides when an idle run is abandoned, and no figure depends on it",
}


@dataclass(frozen=True)
class Built:
    """The store every case copies, and the ids a case edits."""

    url: str
    clock: ReplayClock
    scenario: str
    other: str
    done: str
    active: str
    quit: str


def _build(url: str) -> Built:
    """Fill a store at ``url``: a complete published run, an active one, an abandoned one."""
    clock = ReplayClock(datetime(2026, 3, 10, 12, 0, tzinfo=UTC))
    service = make_service(url, clock)
    try:
        scenario = synthetic_scenario(service, bars=12)
        other = synthetic_scenario(service, bars=12, name="other", seed=9)
        alice = service.authenticate(service.create_key("alice", Tier.PRO))
        service.create_key("bob", Tier.FREE)  # the account an edit moves a run to
        buy = Order("SPY", Side.BUY, Qty(10 * MICRO))
        done = str(service.create_run(alice, scenario.id)["id"])
        service.trade(alice, done, [buy, Order("AAPL", Side.BUY, Qty(5 * MICRO))])
        service.step(alice, done)
        service.trade(alice, done, [Order("SPY", Side.SELL, Qty(4 * MICRO))])
        while not service.step(alice, done)["done"]:
            pass
        service.publish(alice, done)
        quit = str(service.create_run(alice, other.id)["id"])
        service.trade(alice, quit, [buy])
        service.step(alice, quit)
        clock.advance(timedelta(days=6))
        assert service.sweep_abandoned() == 1
        active = str(service.create_run(alice, scenario.id)["id"])
        service.trade(alice, active, [buy, Order("TSLA", Side.SHORT, Qty(2 * MICRO))])
        service.step(alice, active)
        service.step(alice, active)
        service.trade(alice, active, [buy, Order("AAPL", Side.BUY, Qty(MICRO))])
        service.cancel_order(alice, active, 0)
        assert verify(service.store).ok
    finally:
        service.store.close()
    return Built(url, clock, scenario.id, other.id, done, active, quit)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return _build(f"sqlite:///{tmp_path_factory.mktemp('tamper') / 'store.db'}")


Edit = Callable[[sa.Connection, Built], None]


def _sql(statement: str) -> Edit:
    def edit(conn: sa.Connection, b: Built) -> None:
        names = {"done": b.done, "active": b.active, "quit": b.quit, "scenario": b.scenario}
        conn.execute(sa.text(statement), {**names, "other": b.other, "far": FAR})

    return edit


def _state(run: str, change: Callable[[dict[str, object]], None]) -> Edit:
    def edit(conn: sa.Connection, b: Built) -> None:
        run_id = getattr(b, run)
        query = sa.text("SELECT state FROM scenario_runs WHERE id = :i")
        state = json.loads(conn.execute(query, {"i": run_id}).scalar_one())
        change(state)
        update = sa.text("UPDATE scenario_runs SET state = :s WHERE id = :i")
        conn.execute(update, {"s": json.dumps(state), "i": run_id})

    return edit


def _cash(state: dict[str, object]) -> None:
    portfolio = state["portfolio"]
    assert isinstance(portfolio, dict)
    portfolio["cash"] = str(int(portfolio["cash"]) + 1_000_000 * MICRO)


def _positions(state: dict[str, object]) -> None:
    portfolio = state["portfolio"]
    assert isinstance(portfolio, dict)
    portfolio["positions"] = {**portfolio["positions"], "SPY": str(1000 * MICRO)}


def _queued(state: dict[str, object]) -> None:
    queued = state["queued"]
    assert isinstance(queued, list)
    queued.append(["SPY", "buy", str(MICRO)])


def _flag(name: str) -> Callable[[dict[str, object]], None]:
    def change(state: dict[str, object]) -> None:
        state[name] = not state[name]

    return change


def _index(state: dict[str, object]) -> None:
    state["index"] = int(str(state["index"])) + 1


@dataclass(frozen=True)
class Case:
    """One edit of one column and the (table, row, column) verify must name."""

    table: str
    column: str
    edit: Edit
    row: str
    """The attribute of `Built` holding the named row's key (or an id literal)."""
    named_column: str
    named_table: str = ""
    """The table verify names (the edited one unless given)."""

    @property
    def id(self) -> str:
        return f"{self.table}.{self.column}[{self.row}]"


_BAR = "WHERE scenario_id = :scenario AND symbol = 'SPY' AND idx = 3"
_V = "WHERE id = :scenario"

CASES = [
    # scenario_runs: the complete published run, the active one, the abandoned one
    Case(
        "scenario_runs",
        "id",
        _sql("UPDATE scenario_runs SET id = :far WHERE id = :done"),
        FAR,
        "id",
    ),
    Case(
        "scenario_runs",
        "scenario_id",
        _sql("UPDATE scenario_runs SET scenario_id = :other WHERE id = :done"),
        "done",
        "scenario_id",
    ),
    Case(
        "scenario_runs",
        "account",
        _sql("UPDATE scenario_runs SET account = 'bob' WHERE id = :done"),
        "done",
        "account",
    ),
    Case(
        "scenario_runs",
        "account",
        _sql("UPDATE scenario_runs SET account = 'bob' WHERE id = :active"),
        "active",
        "account",
    ),
    Case(
        "scenario_runs",
        "status",
        _sql("UPDATE scenario_runs SET status = 'active' WHERE id = :done"),
        "done",
        "status",
    ),
    Case(
        "scenario_runs",
        "status",
        _sql("UPDATE scenario_runs SET status = 'complete' WHERE id = :active"),
        "active",
        "status",
    ),
    Case(
        "scenario_runs",
        "status",
        _sql("UPDATE scenario_runs SET status = 'active' WHERE id = :quit"),
        "quit",
        "status",
    ),
    Case("scenario_runs", "state", _state("active", _cash), "active", "state"),
    Case("scenario_runs", "state", _state("active", _positions), "active", "state"),
    Case("scenario_runs", "state", _state("active", _queued), "active", "state"),
    Case("scenario_runs", "state", _state("active", _index), "active", "state"),
    Case("scenario_runs", "state", _state("active", _flag("liquidated")), "active", "state"),
    Case("scenario_runs", "state", _state("active", _flag("done")), "active", "state"),
    Case("scenario_runs", "state", _state("done", _cash), "done", "state"),
    Case("scenario_runs", "state", _state("quit", _positions), "quit", "state"),
    Case(
        "scenario_runs",
        "results",
        _sql(
            "UPDATE scenario_runs SET results = replace(results, '\"steps\"\\:11', "
            "'\"steps\"\\:12') WHERE id = :done"
        ),
        "done",
        "results",
    ),
    Case(
        "scenario_runs",
        "results",
        _sql("UPDATE scenario_runs SET results = '{}' WHERE id = :active"),
        "active",
        "results",
    ),
    Case(
        "scenario_runs",
        "published_at",
        _sql(
            "UPDATE scenario_runs SET published_at = '2020-01-01 00:00:00.000000' WHERE id = :done"
        ),
        "done",
        "published_at",
    ),
    Case(
        "scenario_runs",
        "published_at",
        _sql("UPDATE scenario_runs SET published_at = created_at WHERE id = :active"),
        "active",
        "published_at",
    ),
    Case(
        "scenario_runs",
        "created_at",
        _sql("UPDATE scenario_runs SET created_at = '2020-01-01 00:00:00.000000' WHERE id = :done"),
        "done",
        "created_at",
    ),
    # scenario_run_equity
    Case(
        "scenario_run_equity",
        "run_id",
        _sql("UPDATE scenario_run_equity SET run_id = :far WHERE run_id = :done AND idx = 4"),
        "done",
        "idx",
    ),
    Case(
        "scenario_run_equity",
        "idx",
        _sql("UPDATE scenario_run_equity SET idx = 99 WHERE run_id = :active AND idx = 2"),
        "active",
        "idx",
    ),
    Case(
        "scenario_run_equity",
        "equity",
        _sql("UPDATE scenario_run_equity SET equity = equity + 1 WHERE run_id = :done AND idx = 5"),
        "done",
        "equity",
    ),
    Case(
        "scenario_run_equity",
        "equity",
        _sql(
            "UPDATE scenario_run_equity SET equity = equity + 1 WHERE run_id = :active AND idx = 1"
        ),
        "active",
        "equity",
    ),
    # scenario_bars: the content hash pins every column of every bar
    *(
        Case(
            "scenario_bars",
            column,
            _sql(f"UPDATE scenario_bars SET {column} = {value} {_BAR}"),
            "scenario",
            "*",
        )
        for column, value in (
            ("scenario_id", ":far"),
            ("symbol", "'SPZ'"),
            ("idx", "99"),
            ("ts", "ts + 1"),
            ("open", "open + 1"),
            ("high", "high + 1"),
            ("low", "low - 1"),
            ("close", "close + 1"),
            ("volume", "volume + 1"),
        )
    ),
    # scenario_versions: the row its runs started on (their start event's version_hash)
    Case(
        "scenario_versions",
        "id",
        _sql(f"UPDATE scenario_versions SET id = :far {_V}"),
        "done",
        "scenario_id",
        "scenario_runs",
    ),
    *(
        Case(
            "scenario_versions",
            column,
            _sql(f"UPDATE scenario_versions SET {column} = {value} {_V}"),
            "scenario",
            named,
        )
        for column, value, named in (
            ("name", "'renamed'", "name"),
            ("version", "version + 1", "*"),
            ("config", "replace(config, '\"leverage_cap\"\\:2', '\"leverage_cap\"\\:4')", "*"),
            ("content_hash", "'" + "0" * 64 + "'", "*"),
            ("bars", "bars + 1", "bars"),
            ("dropped", "dropped + 1", "*"),
            ("created_at", "'2020-01-01 00:00:00.000000'", "*"),
        )
    ),
]


def _key(case: Case, b: Built) -> str:
    return getattr(b, case.row) if hasattr(b, case.row) else case.row


def _copy(built: Built, tmp_path: Path) -> str:
    path = tmp_path / "copy.db"
    shutil.copyfile(built.url.removeprefix("sqlite:///"), path)
    return f"sqlite:///{path}"


def _drop_triggers(conn: sa.Connection, table: str) -> None:
    query = sa.text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = :t")
    for name in conn.execute(query, {"t": table}).scalars().all():
        conn.execute(sa.text(f'DROP TRIGGER "{name}"'))


def _columns(url: str) -> set[tuple[str, str]]:
    engine = sa.create_engine(url)
    try:
        inspector = sa.inspect(engine)
        return {
            (table, column["name"])
            for table in inspector.get_table_names()
            if table.startswith("scenario_")
            for column in inspector.get_columns(table)
        }
    finally:
        engine.dispose()


def test_every_scenario_column_is_tampered_or_explained(built: Built, tmp_path: Path) -> None:
    """C-4: the matrix covers each column of each scenario table the schema holds."""
    tampered = {(case.table, case.column) for case in CASES}
    schema = _columns(_copy(built, tmp_path))
    assert {t for t, _ in schema} == {
        "scenario_bars",
        "scenario_run_equity",
        "scenario_runs",
        "scenario_versions",
    }
    assert schema - tampered - set(NOT_DERIVED) == set()
    assert tampered & set(NOT_DERIVED) == set()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_an_edited_scenario_column_is_named(built: Built, tmp_path: Path, case: Case) -> None:
    """C-4, S-SCN-2: one column of one row edited behind the log (triggers dropped) is named."""
    url = _copy(built, tmp_path)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            _drop_triggers(conn, case.table)
            case.edit(conn, built)
    finally:
        engine.dispose()
    store = open_store(url, upgrade=False)
    try:
        report = verify(store)
    finally:
        store.close()
    assert not report.ok
    named = {(m.projection, m.key, m.column) for m in report.mismatches}
    table = case.named_table or case.table
    assert (table, _key(case, built), case.named_column) in named, report.mismatches


def test_cash_raised_behind_the_log_then_traded_is_named(built: Built, tmp_path: Path) -> None:
    """C-4, S-FIL-5, S-SCO-1: an active run's cash raised in its row, then traded and finished
    through the service, publishes results no replay of its events gives: verify names the run's
    state, even though every event was appended honestly after the edit."""
    url = _copy(built, tmp_path)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            _state("active", _cash)(conn, built)
    finally:
        engine.dispose()
    service = ScenarioService(open_store(url, upgrade=False), built.clock)
    try:
        alice = service.authenticate(service.create_key("alice", Tier.PRO))
        big = Order("SPY", Side.BUY, Qty(5_000 * MICRO))
        service.trade(alice, built.active, [big])
        while not service.step(alice, built.active)["done"]:
            pass
        report = verify(service.store)
    finally:
        service.store.close()
    first = next(m for m in report.mismatches if m.key == built.active)
    assert (first.check, first.projection, first.column) == (
        "scenario_replay",
        "scenario_runs",
        "state",
    )
    assert "fill" in first.detail


def test_the_cli_fails_naming_the_first_edited_row(built: Built, tmp_path: Path) -> None:
    """C-4: `tradeleague verify` exits 1 and ends on one sentence naming table, row and column."""
    url = _copy(built, tmp_path)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            _sql("UPDATE scenario_runs SET account = 'bob' WHERE id = :done")(conn, built)
    finally:
        engine.dispose()
    result = CliRunner().invoke(app, ["verify", "--db", url])
    assert result.exit_code == 1, result.output
    last = " ".join(result.output.split()).rpartition("FAILED: ")[2]
    assert last == (
        f"1 mismatch(es); the first: scenario_runs row {built.done}, column account: differs "
        "from the run's start event."
    )


PG_CASES = [
    case
    for case in CASES
    if (case.table, case.column, case.row)
    in {
        ("scenario_runs", "account", "done"),
        ("scenario_runs", "state", "active"),
        ("scenario_runs", "published_at", "active"),
        ("scenario_run_equity", "equity", "done"),
        ("scenario_bars", "close", "scenario"),
        ("scenario_versions", "config", "scenario"),
    }
]


def test_the_matrix_holds_on_postgresql(pg_url: str) -> None:
    """C-4, S-SCN-2: on PostgreSQL, one edit per table (its triggers disabled, the rows put
    back after each case) is named by table, row and column. No case edits a key, so the rows
    are put back by key."""
    assert {c.table for c in PG_CASES} == set(scenario_tables.tables)
    b = _build(pg_url)
    engine = sa.create_engine(pg_url)
    try:
        with engine.connect() as conn:
            kept = {
                t: conn.execute(sa.select(scenario_tables.tables[t])).all()
                for t in scenario_tables.tables
            }
        for case in PG_CASES:
            with engine.begin() as conn:
                conn.execute(sa.text(f"ALTER TABLE {case.table} DISABLE TRIGGER USER"))
                case.edit(conn, b)
            store = open_store(pg_url, upgrade=False)
            try:
                report = verify(store)
            finally:
                store.close()
            named = {(m.projection, m.key, m.column) for m in report.mismatches}
            expected = (case.named_table or case.table, _key(case, b), case.named_column)
            assert expected in named, (case.id, report.mismatches)
            with engine.begin() as conn:  # the rows as built, for the next case
                table = scenario_tables.tables[case.table]
                keys = [c for c in table.columns if c.primary_key]
                update = (
                    sa.update(table)
                    .where(*(c == sa.bindparam(f"k_{c.name}") for c in keys))
                    .values({c.name: sa.bindparam(f"v_{c.name}") for c in table.columns})
                )
                rows = [
                    {f"{p}_{k}": v for k, v in r._mapping.items() for p in ("k", "v")}
                    for r in kept[case.table]
                ]
                conn.execute(update, rows)
                conn.execute(sa.text(f"ALTER TABLE {case.table} ENABLE TRIGGER USER"))
        store = open_store(pg_url, upgrade=False)
        try:
            assert verify(store).ok  # every case's rows were put back as built
        finally:
            store.close()
    finally:
        engine.dispose()
