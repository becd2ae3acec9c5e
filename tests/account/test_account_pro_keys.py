"""A Pro owner's key: sealed in the vault, sent to the provider, never seen again (issue 15)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from account.owners_kit import Owner, owner, site  # type: ignore[import-not-found]
from tradeleague.api.account.setup import AccountSettings
from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.keys import KeyVault, MasterKey, generate_master_key
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights import ops
from tradeleague.league.weights.owners import OwnerConfig
from tradeleague.store import Store, open_store
from tradeleague.testing.fake_provider import FakeProvider

CANARY = "sk-canary-7f3a9c1e5b2d4086a1e3"
GOOD = "sk-good-key-0123456789abcdef"
MODEL = "owner-model"
ANSWER = json.dumps({"targets": {"SPY": 40, "QQQ": 30}, "reason": "Hold the two indexes."})
MONDAY = datetime(2026, 7, 6, tzinfo=UTC)
TUESDAY_1503 = datetime(2026, 7, 7, 15, 3, tzinfo=UTC)


@pytest.fixture
def market(shared_data: Path, tmp_path: Path) -> Path:
    """Frozen daily bars of SPY and QQQ (the shared data)."""
    bars = tmp_path / "bars"
    bars.mkdir()
    for symbol in ("SPY", "QQQ"):
        (bars / f"{symbol}.csv").symlink_to(shared_data / "us_equities_daily" / f"{symbol}.csv")
    return bars


def _season(store: Store, clock: ReplayClock) -> str:
    return ops.create_season(
        store,
        clock,
        start=MONDAY,
        symbols=["SPY", "QQQ"],
        decimals={"SPY": 8, "QQQ": 8},
        source="fixture",
        season_id="owners",
    )


def _round(db: str, market: Path, master: str, at: datetime) -> str:
    env = {"TRADELEAGUE_NOW": at.isoformat(), "TRADELEAGUE_MASTER_KEY": master}
    args = ["weights", "run-round", "--season", "owners", "--market", str(market), "--db", db]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    return result.output


def _pro(me: Owner, url: str, key: str) -> dict[str, Any]:
    body = {
        "name": "mine",
        "division": "pro",
        "prompt": "Hold SPY and QQQ.",
        "model": f"openai:{MODEL}@{url}",
        "key": key,
    }
    made = me.write("POST", "/api/v1/account/agent", body)
    assert made.status_code == 201, made.text
    agent: dict[str, Any] = made.json()["agent"]
    return agent


def _every_text(store: Store) -> Iterator[str]:
    inspector = sa.inspect(store.engine)
    with store.engine.connect() as conn:
        for table in inspector.get_table_names():
            for row in conn.execute(sa.text(f'SELECT * FROM "{table}"')):
                yield from (str(value) for value in row)


def test_owner_key_reaches_the_provider_and_nothing_else(
    db_url: str, market: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """C-9: the canary key is sealed, sent as the Bearer of the next round's call, and appears
    in no response, log line (DEBUG included), event or plaintext column."""
    caplog.set_level(logging.DEBUG)
    master = generate_master_key()
    vault = KeyVault([MasterKey.from_text(master)])
    clock = ReplayClock(TUESDAY_1503)
    seen: list[str] = []
    with FakeProvider(require_key=CANARY) as fake, open_store(db_url) as store:
        fake.script_model(MODEL, ANSWER)
        _season(store, clock)
        settings = AccountSettings(vault=vault, owners=OwnerConfig(endpoints=(fake.url,)))
        with site(ScenarioService(store, clock), clock, settings) as base, owner(base) as me:
            seen.append(me.login(clock).text)
            agent = _pro(me, fake.url, CANARY)
            seen.append(json.dumps(agent))
            assert agent["key"] == "****" + CANARY[-4:]
            seen.append(_round(db_url, market, master, TUESDAY_1503))
            view = me.http.get("/api/v1/account")
            seen.append(view.text)
            seen.append(me.http.get(f"/api/v1/weights/seasons/owners/agents/{agent['id']}").text)
        assert [r.authorization for r in fake.requests_for(MODEL)] == [f"Bearer {CANARY}"]
        state = ops.load_season(store, "owners")
        assert state.agents[agent["id"]].trades > 0  # the call answered and the agent traded
        texts = list(_every_text(store))
    assert texts
    assert seen
    assert not any(CANARY in t for t in texts)
    assert not any(CANARY in t for t in seen)
    assert not any(CANARY in r.getMessage() for r in caplog.records)
    assert CANARY not in caplog.text


def test_rejected_key_pauses_the_agent_and_the_owner_fixes_it(
    sqlite_url: str, market: Path
) -> None:
    """W-VAL-9: three rounds with a rejected key pause the Pro agent; the owner replaces the
    key and resumes, and the next round calls the provider with the new key."""
    master = generate_master_key()
    vault = KeyVault([MasterKey.from_text(master)])
    clock = ReplayClock(TUESDAY_1503)
    with FakeProvider(require_key=GOOD) as fake, open_store(sqlite_url) as store:
        fake.script_model(MODEL, ANSWER)
        _season(store, clock)
        settings = AccountSettings(vault=vault, owners=OwnerConfig(endpoints=(fake.url,)))
        with site(ScenarioService(store, clock), clock, settings) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            agent = _pro(me, fake.url, "sk-wrong-key-000000000000")
            early = me.write("POST", "/api/v1/account/agent/resume")
            assert early.json()["error"]["code"] == "not_paused"
            for day in (7, 8, 9):  # a round a day: the daily bars move once a day
                _round(sqlite_url, market, master, TUESDAY_1503.replace(day=day))
            assert me.http.get("/api/v1/account").json()["agent"]["paused"] is True
            fixed = me.write("PUT", "/api/v1/account/agent/key", {"key": GOOD})
            assert fixed.status_code == 200, fixed.text
            assert fixed.json()["agent"]["key"] == "****" + GOOD[-4:]
            clock.set(TUESDAY_1503.replace(day=9, hour=18))
            resumed = me.write("POST", "/api/v1/account/agent/resume")
            assert resumed.status_code == 200, resumed.text
            assert resumed.json()["agent"]["paused"] is False
            _round(sqlite_url, market, master, TUESDAY_1503.replace(day=10))
        keys = [r.authorization for r in fake.requests_for(MODEL)]
        assert keys[-1] == f"Bearer {GOOD}"
        assert keys.count(f"Bearer {GOOD}") == 1
        state = ops.load_season(store, "owners")
        assert state.agents[agent["id"]].trades > 0
