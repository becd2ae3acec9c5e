"""Scenario API keys from the account: issued once, listed, revoked everywhere (issue 15)."""

from __future__ import annotations

import time

from account.owners_kit import NOW, new_season, owner, site  # type: ignore[import-not-found]
from tradeleague.accounts import KEY_CACHE_SECONDS
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.store import open_store


def test_keys_are_shown_once_listed_and_revoked_on_every_server(sqlite_url: str) -> None:
    """S-SVC-4: the new key is in the create answer only; Bearer and X-API-Key both work; a
    key revoked through one server is refused by another within a second."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store_a, open_store(sqlite_url) as store_b:
        new_season(store_a, clock)
        with (
            site(ScenarioService(store_a, clock), clock) as base_a,
            site(ScenarioService(store_b, clock), clock) as base_b,
            owner(base_a) as me,
            owner(base_b) as other_server,
        ):
            assert me.login(clock).status_code == 200
            made = me.write("POST", "/api/v1/account/keys")
            assert made.status_code == 201, made.text
            issued = made.json()["key"]
            key = issued["key"]
            assert key.startswith(issued["prefix"])
            listed = me.http.get("/api/v1/account/keys").json()
            assert [k["id"] for k in listed["keys"]] == [issued["id"]]
            assert key not in str(listed)
            assert key not in me.http.get("/api/v1/account").text
            assert listed["usage"] == {
                "tier": "free",
                "runs": 0,
                "limit": 25,
                "resets_at": "2026-11-01T00:00:00Z",
            }
            bearer = {"Authorization": f"Bearer {key}"}
            b = other_server.http
            assert b.get("/api/v1/scenarios", headers=bearer).status_code == 200
            assert b.get("/api/v1/scenarios", headers={"X-API-Key": key}).status_code == 200
            gone = me.write("DELETE", f"/api/v1/account/keys/{issued['id']}")
            assert gone.status_code == 200, gone.text
            assert me.http.get("/api/v1/scenarios", headers=bearer).status_code == 401
            time.sleep(KEY_CACHE_SECONDS + 0.05)
            assert b.get("/api/v1/scenarios", headers=bearer).status_code == 401
            again = me.write("DELETE", f"/api/v1/account/keys/{issued['id']}")
            assert again.status_code == 404
            forged = me.write("DELETE", "/api/v1/account/keys/not-an-id")
            assert forged.status_code == 404
            assert me.http.get("/api/v1/account/keys").json()["keys"][0]["revoked_at"]


def test_account_routes_are_in_the_openapi_document(sqlite_url: str) -> None:
    """Every account route is documented."""
    clock = ReplayClock(NOW)
    with (
        open_store(sqlite_url) as store,
        site(ScenarioService(store, clock), clock) as base,
        owner(base) as me,
    ):
        paths = me.http.get("/openapi.json").json()["paths"]
    expected = {
        ("get", "/api/v1/account/nonce"),
        ("post", "/api/v1/account/login"),
        ("post", "/api/v1/account/logout"),
        ("get", "/api/v1/account"),
        ("post", "/api/v1/account/agent"),
        ("post", "/api/v1/account/agent/prompt"),
        ("put", "/api/v1/account/agent/key"),
        ("post", "/api/v1/account/agent/resume"),
        ("get", "/api/v1/account/keys"),
        ("post", "/api/v1/account/keys"),
        ("delete", "/api/v1/account/keys/{key_id}"),
    }
    assert {(m, p) for p, ops in paths.items() for m in ops if p.startswith("/api/v1/account")} == (
        expected
    )
