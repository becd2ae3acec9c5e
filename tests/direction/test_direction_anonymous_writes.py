"""Writes without an account: limited per client address, and a name is its first caller's.

A replay plays the arena's first round; the site, on a clock inside the next
round, takes visitors' calls. One address sending 400 calls gets the allowed
few and then ``429`` with ``Retry-After``, counted in the store, so two site
processes on one store share the count; the sign-in nonce is limited the same
way. A name belongs to the visitor whose cookie first called under it
(D-PUB-2 names; issue 24 item 5).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from direction_helpers import START, always, contestant  # type: ignore[import-not-found]
from eth_account import Account
from eth_account.signers.local import LocalAccount
from fastapi import FastAPI
from fastapi.testclient import TestClient

from account.owners_kit import sign, siwe_text  # type: ignore[import-not-found]
from tradeleague.accounts.anonymous import WriteLimit, WriteLimits, claim_name
from tradeleague.clock import ReplayClock
from tradeleague.errors import ConfigError
from tradeleague.host.config import load_league
from tradeleague.league.direction import replay_direction
from tradeleague.league.scenario import ScenarioService
from tradeleague.market import Dataset
from tradeleague.site import create_site
from tradeleague.store import Store, open_store

CALLS = "/api/v1/direction/rounds/current/calls"
LIMIT = WriteLimit(per_window=8, window_s=60)
MOMENT = 1_800_000_010.0  # ten seconds into a window: every call below falls in it


async def _played(store: Store, dataset: Dataset) -> None:
    roster = [contestant("alpha", always("up"))]
    await replay_direction(store, dataset, roster, start=START, end=START + timedelta(minutes=5))


def _site(store: Store, clock: ReplayClock) -> FastAPI:
    app = create_site(ScenarioService(store, clock), clock=clock, write_limit=LIMIT)
    app.state.write_limits = WriteLimits(store, LIMIT, now=lambda: MOMENT)
    return app


def _call(http: TestClient, name: str) -> tuple[int, dict[str, object], str | None]:
    answer = http.post(CALLS, json={"visitor": name, "direction": "up"})
    return answer.status_code, answer.json(), answer.headers.get("Retry-After")


async def test_one_address_gets_the_allowed_few_writes_then_429_shared_across_sites(
    store: Store, synthetic_btc: Dataset, sqlite_url: str
) -> None:
    """400 visitors' calls from one address: 8 taken, 392 refused 429 with Retry-After."""
    await _played(store, synthetic_btc)
    clock = ReplayClock(START + timedelta(minutes=6))
    with open_store(sqlite_url) as second_store:  # a second serve process on the same store
        sites = [TestClient(_site(store, clock)), TestClient(_site(second_store, clock))]
        answers = [_call(sites[n % 2], f"visitor {n}") for n in range(400)]
        nonce = sites[1].get("/api/v1/account/nonce")
    taken = [a for a in answers if a[0] == 202]
    limited = [a for a in answers if a[0] == 429]
    assert len(taken) == LIMIT.per_window
    assert len(limited) == 400 - LIMIT.per_window
    assert answers[: LIMIT.per_window] == taken  # the first few, then none
    for _, body, retry in limited:
        error = body["error"]
        assert isinstance(error, dict)
        assert error["code"] == "rate_limited"
        assert retry == "50"  # the window's end, ten seconds in
    assert nonce.status_code == 429  # a sign-in nonce is a write without an account too
    assert nonce.headers["Retry-After"] == "50"
    assert nonce.json()["error"]["code"] == "rate_limited"


async def test_a_name_belongs_to_the_visitor_cookie_that_first_called_under_it(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-PUB-2: another visitor's call under a taken name is refused and says why."""
    await _played(store, synthetic_btc)
    clock = ReplayClock(START + timedelta(minutes=6))
    app = create_site(ScenarioService(store, clock), clock=clock)
    with TestClient(app) as first, TestClient(app) as other:
        status, _, _ = _call(first, "Ann")
        assert status == 202
        assert first.cookies.get("tl_visitor")
        status, body, _ = _call(other, "ann")  # the same name, casefolded
        assert status == 409
        error = body["error"]
        assert isinstance(error, dict)
        assert error["code"] == "name_taken"
        assert "belongs to the visitor who first called under it" in str(error["message"])
        same = {"tl_visitor": str(first.cookies.get("tl_visitor"))}
        with TestClient(app, cookies=same) as again:  # the first caller, elsewhere
            status, body, _ = _call(again, "Ann")
        assert status == 409
        error = body["error"]
        assert isinstance(error, dict)
        assert error["code"] == "already_called"  # their name; one call per name per round
        status, _, _ = _call(first, "Bea")
        assert status == 202


def test_the_league_file_limits_are_bounded() -> None:
    """The ``[limits]`` table: whole numbers in range, no unknown key."""
    assert WriteLimit.from_table({"anonymous_writes": 5, "window_s": 10}) == WriteLimit(5, 10)
    assert WriteLimit.from_table({}) == WriteLimit()
    for bad in ({"anonymous_writes": 0}, {"window_s": 1.5}, {"burst": 3}, {"window_s": True}):
        with pytest.raises(ConfigError):
            WriteLimit.from_table(bad)


@pytest.mark.shared_data
def test_the_league_file_carries_the_limits_to_serve(tmp_path: Path, shared_data: Path) -> None:
    """``[limits]`` in the league file is what ``serve --config`` counts by; a bad one is named."""
    league = tmp_path / "league.toml"
    text = f"""
[league]
db = "sqlite:///league.db"

[direction]
market = "{shared_data / "crypto_1m"}"

[[direction.agents]]
name = "up"
spec = "baseline:up"

[limits]
anonymous_writes = LIMIT
"""
    league.write_text(text.replace("LIMIT", "7"), encoding="utf-8")
    assert load_league(league).limits == WriteLimit(per_window=7, window_s=60)
    league.write_text(text.replace("LIMIT", "0"), encoding="utf-8")
    with pytest.raises(ConfigError, match="anonymous_writes is a whole number from 1"):
        load_league(league)


def test_the_counts_and_names_hold_on_both_backends(db_url: str) -> None:
    """The per-address count and a name's holder, on SQLite and PostgreSQL alike."""
    moments = iter([100.0] * 3 + [130.0])
    with open_store(db_url) as opened:
        limits = WriteLimits(
            opened, WriteLimit(per_window=2, window_s=60), now=lambda: next(moments)
        )
        assert [limits.take("10.0.0.1") for _ in range(3)] == [None, None, 20]
        assert limits.take("10.0.0.1") is None  # a new window
        assert claim_name(opened, "Ann", "first", START)
        assert not claim_name(opened, "ANN", "second", START)
        assert claim_name(opened, "ann", "first", START)


def _signed_in(http: TestClient, wallet: LocalAccount, clock: ReplayClock) -> None:
    challenge = http.get("/api/v1/account/nonce").json()
    text = siwe_text(
        wallet, domain=challenge["domain"], nonce=challenge["nonce"], issued=clock.now()
    )
    answer = http.post(
        "/api/v1/account/login", json={"message": text, "signature": sign(wallet, text)}
    )
    assert answer.status_code == 200, answer.text


async def test_a_signed_in_wallet_owns_its_name_on_every_browser(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-PUB-2: signed in, the wallet (not the browser's cookie) owns the name it called under."""
    await _played(store, synthetic_btc)
    clock = ReplayClock(START + timedelta(minutes=6))
    app = create_site(ScenarioService(store, clock), clock=clock)
    wallet = Account.create()
    with TestClient(app) as laptop, TestClient(app) as phone, TestClient(app) as stranger:
        _signed_in(laptop, wallet, clock)
        assert _call(laptop, "Cleo")[0] == 202
        _signed_in(phone, wallet, clock)  # another browser, another cookie, the same wallet
        status, body, _ = _call(phone, "Cleo")
        assert status == 409
        assert isinstance(body["error"], dict)
        assert body["error"]["code"] == "already_called"  # theirs; one call a round
        status, body, _ = _call(stranger, "Cleo")
        assert status == 409
        assert isinstance(body["error"], dict)
        assert body["error"]["code"] == "name_taken"
