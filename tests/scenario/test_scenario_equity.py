"""A run's equity path in ``scenario_run_equity``: one append-only row a step (issue 16).

A step appends its equity and rewrites only the small state row; a database
made by revision 0004 (paths inside the state rows) upgrades with every run's
figures unchanged; the table refuses UPDATE and DELETE; ``verify`` ties a
completed run's rows to the path its completion event holds. On SQLite and
PostgreSQL.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import exc

from conftest import hand_scenario, synthetic_scenario  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.accounts.keys import Account
from tradeleague.accounts.tables import api_accounts, api_keys, idempotency_keys
from tradeleague.clock import ReplayClock
from tradeleague.events.scenario import SCENARIO_RUN_COMPLETED
from tradeleague.league.scenario import Scenario, ScenarioService
from tradeleague.league.scenario.reads import leaderboard_payload, run_payload
from tradeleague.league.scenario.tables import (
    scenario_bars,
    scenario_run_equity,
    scenario_runs,
    scenario_versions,
)
from tradeleague.money import qty
from tradeleague.sim import Order, Side
from tradeleague.store import migrate, open_store, verify
from tradeleague.store.engine import make_engine
from tradeleague.store.schema import chain_head, events

OLD_HEAD = "0004_owner_accounts"


def _account(service: ScenarioService, name: str = "builder") -> Account:
    return service.authenticate(service.create_key(name, Tier.PRO))


def _buy(symbol: str, amount: str) -> Order:
    return Order(symbol, Side.BUY, qty(amount))


def _sell(symbol: str, amount: str) -> Order:
    return Order(symbol, Side.SELL, qty(amount))


def _finish(service: ScenarioService, account: Account, run_id: str) -> None:
    while not service.step(account, run_id)["done"]:
        pass


def _path(service: ScenarioService, run_id: str) -> list[tuple[int, int]]:
    with service.read("t") as conn:
        rows = conn.execute(
            sa.select(scenario_run_equity.c.idx, scenario_run_equity.c.equity)
            .where(scenario_run_equity.c.run_id == run_id)
            .order_by(scenario_run_equity.c.idx)
        ).all()
    return [(int(i), int(v)) for i, v in rows]


def _state_text(service: ScenarioService, run_id: str) -> str:
    with service.read("t") as conn:
        text = conn.execute(
            sa.select(scenario_runs.c.state).where(scenario_runs.c.id == run_id)
        ).scalar_one()
    return str(text)


def _logged_path(service: ScenarioService, run_id: str) -> list[int]:
    for stored in service.store.events(f"scenario-run/{run_id}"):
        if stored.event.kind == SCENARIO_RUN_COMPLETED:
            path = stored.event.payload["equity"]
            assert isinstance(path, list)
            return [int(str(v)) for v in path]
    raise AssertionError("the run never completed")


def test_a_step_appends_one_equity_row_and_rewrites_a_small_state(
    db_url: str, clock: ReplayClock
) -> None:
    """S-SCO-1: bar k's row is the step's equity; the state row does not grow with the run."""
    service = ScenarioService(open_store(db_url), clock)
    try:
        scenario = synthetic_scenario(service)
        account = _account(service)
        run_id = str(service.create_run(account, scenario.id)["id"])
        assert _path(service, run_id) == [(0, int(scenario.config.cash))]
        service.trade(account, run_id, [_buy("SPY", "3")])
        sizes, reported = [], [int(scenario.config.cash)]
        for _ in range(10):
            body = service.step(account, run_id)
            reported.append(int(Decimal(str(body["equity"])) * 1_000_000))
            sizes.append(len(_state_text(service, run_id)))
        assert [i for i, _ in _path(service, run_id)] == list(range(11))
        assert [v for _, v in _path(service, run_id)] == reported
        assert max(sizes[1:]) - min(sizes[1:]) <= 1  # bar 2 as bar 10 but for the index's digits
        assert "equity" not in json.loads(_state_text(service, run_id))
        _finish(service, account, run_id)
        path = _path(service, run_id)
        assert [i for i, _ in path] == list(range(scenario.bars.last + 1))
        assert [v for _, v in path] == _logged_path(service, run_id)
        results = service.results(account, run_id)
        assert results["steps"] == scenario.bars.last
        assert verify(service.store).ok
    finally:
        service.store.close()


_REFUSED = [
    "UPDATE scenario_run_equity SET equity = equity + 1",
    "UPDATE scenario_run_equity SET idx = 99 WHERE idx = 0",
    "DELETE FROM scenario_run_equity",
    "DELETE FROM scenario_run_equity WHERE idx = 1",
]


@pytest.mark.parametrize("statement", _REFUSED)
def test_the_equity_table_refuses_update_and_delete(
    db_url: str, clock: ReplayClock, statement: str
) -> None:
    """C-4: the database itself refuses to change or remove a run's recorded equity."""
    service = ScenarioService(open_store(db_url), clock)
    try:
        scenario = synthetic_scenario(service)
        account = _account(service)
        run_id = str(service.create_run(account, scenario.id)["id"])
        service.step(account, run_id)
        before = _path(service, run_id)
        with pytest.raises(exc.DBAPIError, match="append-only"), service.store.engine.begin() as c:
            c.execute(sa.text(statement))
        assert _path(service, run_id) == before
    finally:
        service.store.close()


def test_a_replacing_insert_or_truncate_is_refused_too(db_url: str, clock: ReplayClock) -> None:
    """C-4: SQLite's INSERT OR REPLACE (no DELETE trigger fires) and PostgreSQL's TRUNCATE."""
    service = ScenarioService(open_store(db_url), clock)
    try:
        scenario = synthetic_scenario(service)
        account = _account(service)
        run_id = str(service.create_run(account, scenario.id)["id"])
        before = _path(service, run_id)
        if db_url.startswith("sqlite"):
            statement = (
                "INSERT OR REPLACE INTO scenario_run_equity (run_id, idx, equity) "
                f"VALUES ('{run_id}', 0, 1)"
            )
        else:
            statement = "TRUNCATE scenario_run_equity"
        with pytest.raises(exc.DBAPIError, match="append-only"), service.store.engine.begin() as c:
            c.execute(sa.text(statement))
        assert _path(service, run_id) == before
    finally:
        service.store.close()


# -- an old database upgrades with its runs unchanged ----------------------------------------


def _play(service: ScenarioService, clock: ReplayClock) -> dict[str, str]:
    """Make runs of every kind: published, liquidated, active with orders queued, abandoned."""
    syn = synthetic_scenario(service)
    hand = hand_scenario(service)
    account = _account(service)
    runs: dict[str, str] = {}
    runs["published"] = str(service.create_run(account, syn.id)["id"])
    # a rejection at the step: past the leverage cap (a sell of nothing is refused when placed)
    service.trade(account, runs["published"], [_buy("SPY", "4"), _buy("TSLA", "100000000")])
    for _ in range(12):
        service.step(account, runs["published"])
    service.trade(account, runs["published"], [_sell("SPY", "4")])
    _finish(service, account, runs["published"])
    service.publish(account, runs["published"])
    runs["second"] = str(service.create_run(account, syn.id)["id"])
    service.trade(account, runs["second"], [_buy("AAPL", "7")])
    _finish(service, account, runs["second"])
    service.publish(account, runs["second"])
    runs["liquidated"] = str(service.create_run(account, hand.id)["id"])
    service.trade(account, runs["liquidated"], [_buy("SPY", "195")])
    _finish(service, account, runs["liquidated"])
    assert service.results(account, runs["liquidated"])["liquidated"] is True
    service.publish(account, runs["liquidated"])
    runs["abandoned"] = str(service.create_run(account, syn.id)["id"])
    service.step(account, runs["abandoned"])
    clock.advance(service.preset.idle_limit + timedelta(minutes=1))
    assert service.sweep_abandoned() == 1
    runs["active"] = str(service.create_run(account, syn.id)["id"])
    service.trade(account, runs["active"], [_buy("TSLA", "2")])
    for _ in range(7):
        service.step(account, runs["active"])
    service.trade(account, runs["active"], [_sell("TSLA", "1")])
    runs["scenario"], runs["hand"], runs["account"] = syn.id, hand.id, account.name
    return runs


def _figures(service: ScenarioService, runs: dict[str, str]) -> dict[str, Any]:
    """Every figure a visitor or the owner reads of the runs."""
    account = Account(runs["account"], Tier.PRO)
    out: dict[str, Any] = {}
    for scenario in (runs["scenario"], runs["hand"]):
        for metric in ("sharpe", "return", "max_drawdown"):
            out[f"board {scenario} {metric}"] = leaderboard_payload(service, scenario, metric)
    for name in ("published", "second", "liquidated"):
        out[f"public {name}"] = run_payload(service, runs[name])
        out[f"results {name}"] = service.results(account, runs[name])
        out[f"path {name}"] = _logged_path(service, runs[name])
    out["mine"] = service.runs(account)
    out["market"] = service.market(account, runs["active"])
    return out


_OLD_TABLES = (
    scenario_versions,
    scenario_bars,
    api_accounts,
    api_keys,
    scenario_runs,
    idempotency_keys,
    events,
)


def _as_0004_left_it(source: ScenarioService, url: str) -> None:
    """Write ``source``'s rows into a database at 0004, each run's path back in its state."""
    engine = make_engine(url)
    try:
        migrate.upgrade(engine, to=OLD_HEAD)
        with source.read("t") as read, engine.begin() as write:
            paths: dict[str, list[str]] = {}
            for row in read.execute(
                sa.select(scenario_run_equity).order_by(
                    scenario_run_equity.c.run_id, scenario_run_equity.c.idx
                )
            ):
                paths.setdefault(str(row.run_id), []).append(str(int(row.equity)))
            for table in _OLD_TABLES:
                rows = [dict(r._mapping) for r in read.execute(sa.select(table))]
                if table is scenario_runs:
                    for r in rows:  # the state as 0004's code wrote it: the path inside
                        state = json.loads(r["state"])
                        state["equity"] = paths[r["id"]]
                        r["state"] = json.dumps(state, sort_keys=True, separators=(",", ":"))
                if rows:
                    write.execute(sa.insert(table), rows)
            head = read.execute(sa.select(chain_head)).one()
            write.execute(
                sa.update(chain_head)
                .where(chain_head.c.id == 1)
                .values(seq=head.seq, hash=head.hash)
            )
            assert migrate.current_revision(write) == OLD_HEAD
            assert "scenario_run_equity" not in sa.inspect(write).get_table_names()
    finally:
        engine.dispose()


def test_an_old_database_upgrades_with_every_run_unchanged(
    db_url: str, tmp_path: Path, clock: ReplayClock
) -> None:
    """Migration 0005 moves each run's path out of its state row; every figure stays.

    The runs are played once (on SQLite at head), written into a database at
    0004 the way 0004's code stored them (the path inside the state row), and
    upgraded: the boards, published runs, results, the owner's views and the
    verify verdict are equal, the rows equal the path event by event, and the
    active run, stepped to its end on both, completes with the same results.
    """
    now = ReplayClock(clock.now())
    played = ScenarioService(open_store(f"sqlite:///{tmp_path / 'played.db'}"), now)
    old_db = db_url
    try:
        runs = _play(played, now)
        before = _figures(played, runs)
        _as_0004_left_it(played, old_db)
        upgraded = ScenarioService(open_store(old_db), now)
        try:
            with upgraded.read("t") as conn:
                assert migrate.current_revision(conn) == migrate.head_revision()
            for name in ("published", "second", "liquidated", "abandoned", "active"):
                run_id = runs[name]
                assert _path(upgraded, run_id) == _path(played, run_id), name
                assert _state_text(upgraded, run_id) == _state_text(played, run_id), name
            assert [v for _, v in _path(upgraded, runs["published"])] == before["path published"]
            assert _figures(upgraded, runs) == before
            assert verify(upgraded.store).ok
            account = Account(runs["account"], Tier.PRO)
            _finish(played, account, runs["active"])
            _finish(upgraded, account, runs["active"])
            assert upgraded.results(account, runs["active"]) == played.results(
                account, runs["active"]
            )
            assert _logged_path(upgraded, runs["active"]) == _logged_path(played, runs["active"])
            assert verify(upgraded.store).ok
        finally:
            upgraded.store.close()
    finally:
        played.store.close()


# -- verify ties the rows to the log ------------------------------------------------------------


def _completed_run(service: ScenarioService) -> tuple[Scenario, str]:
    scenario = synthetic_scenario(service)
    account = _account(service)
    run_id = str(service.create_run(account, scenario.id)["id"])
    service.trade(account, run_id, [_buy("SPY", "5")])
    _finish(service, account, run_id)
    assert verify(service.store).ok
    return scenario, run_id


def test_verify_finds_an_equity_row_appended_after_the_end(db_url: str, clock: ReplayClock) -> None:
    """C-4: a bar past a completed run's end, or rows of no run, contradict the log."""
    service = ScenarioService(open_store(db_url), clock)
    try:
        scenario, run_id = _completed_run(service)
        with service.store.engine.begin() as conn:
            conn.execute(
                sa.insert(scenario_run_equity).values(
                    run_id=run_id, idx=scenario.bars.last + 1, equity=10**12
                )
            )
        found = [(m.check, m.projection, m.key) for m in verify(service.store).mismatches]
        assert found == [("scenario_equity", "scenario_run_equity", run_id)]
    finally:
        service.store.close()


def test_verify_finds_an_equity_row_edited_behind_the_triggers(sqlite_url: str) -> None:
    """C-4: someone who drops the trigger and edits a bar's equity is found by verify."""
    service = ScenarioService(
        open_store(sqlite_url), ReplayClock(datetime(2026, 3, 10, tzinfo=UTC))
    )
    try:
        _, run_id = _completed_run(service)
        with service.store.engine.begin() as conn:
            conn.execute(sa.text("DROP TRIGGER scenario_run_equity_no_update"))
            conn.execute(
                sa.text(
                    "UPDATE scenario_run_equity SET equity = equity * 2 "
                    "WHERE run_id = :r AND idx = 3"
                ),
                {"r": run_id},
            )
        found = [(m.check, m.key) for m in verify(service.store).mismatches]
        assert found == [("scenario_equity", run_id)]
    finally:
        service.store.close()


# -- what never changes is built once per scenario -------------------------------------------


def test_kept_bar_views_equal_fresh_ones_and_callers_cannot_change_them(
    sqlite_url: str, clock: ReplayClock
) -> None:
    """S-API-1: a market read from a warm scenario equals one from a service that just started."""
    warm = ScenarioService(open_store(sqlite_url), clock)
    try:
        scenario = synthetic_scenario(warm)
        account = _account(warm)
        run_id = str(warm.create_run(account, scenario.id)["id"])
        seen = []
        for _ in range(25):
            view = warm.market(account, run_id)
            seen.append(json.dumps(view, sort_keys=True))
            view["bars"]["SPY"]["close"] = "0"  # type: ignore[index]
            view["history"]["SPY"][0]["timestamp"] = "never"  # type: ignore[index]
            warm.step(account, run_id)
        cold = ScenarioService(open_store(sqlite_url), clock)
        try:
            assert json.dumps(cold.market(account, run_id), sort_keys=True) == json.dumps(
                warm.market(account, run_id), sort_keys=True
            )
            assert '"0"' not in json.dumps(warm.market(account, run_id)["bars"])
        finally:
            cold.store.close()
        assert len(set(seen)) == len(seen)
    finally:
        warm.store.close()
