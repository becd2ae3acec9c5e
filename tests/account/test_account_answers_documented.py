"""The owners' account routes answer what ``/openapi.json`` documents (issue 29 item 1).

A wallet signs in through the real flow and walks its account: each answer is
validated against the schema the document gives for that route and status, so
a field a route adds without documenting it fails here.
"""

from __future__ import annotations

from account.owners_kit import NOW, new_season, owner, site  # type: ignore[import-not-found]
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.store import open_store
from tradeleague.testing.documented import strays


def test_every_account_answer_is_its_documented_schema(sqlite_url: str) -> None:
    """Sign in, read the account, issue and revoke a key, enter and change an agent, sign out."""
    clock = ReplayClock(NOW)
    with (
        open_store(sqlite_url) as store,
        site(ScenarioService(store, clock), clock) as base,
        owner(base) as me,
    ):
        new_season(store, clock)
        doc = me.http.get("/openapi.json").json()
        address = me.wallet.address
        calls = [("get", "/api/v1/account/nonce", me.http.get("/api/v1/account/nonce"))]
        nonce = me.http.get("/api/v1/account/nonce", params={"address": address})
        calls.append(("get", "/api/v1/account/nonce", nonce))
        assert "message" in nonce.json()
        calls.append(("post", "/api/v1/account/login", me.login(clock)))
        calls.append(("post", "/api/v1/account/keys", me.write("POST", "/api/v1/account/keys")))
        key_id = calls[-1][2].json()["key"]["id"]
        calls.append(("get", "/api/v1/account/keys", me.http.get("/api/v1/account/keys")))
        agent = {"name": "steady", "division": "open", "prompt": "Hold the index, trim losers."}
        calls.append(
            ("post", "/api/v1/account/agent", me.write("POST", "/api/v1/account/agent", agent))
        )
        prompt = me.write("POST", "/api/v1/account/agent/prompt", {"prompt": "Hold cash."})
        calls.append(("post", "/api/v1/account/agent/prompt", prompt))
        calls.append(("get", "/api/v1/account", me.http.get("/api/v1/account")))
        revoked = me.write("DELETE", f"/api/v1/account/keys/{key_id}")
        calls.append(("delete", "/api/v1/account/keys/{key_id}", revoked))
        not_paused = me.write("POST", "/api/v1/account/agent/resume")
        calls.append(("post", "/api/v1/account/agent/resume", not_paused))
        calls.append(("post", "/api/v1/account/logout", me.write("POST", "/api/v1/account/logout")))
    assert [c[2].status_code for c in calls] == [
        200,
        200,
        200,
        201,
        200,
        201,
        200,
        200,
        200,
        409,
        200,
    ]
    wrong = [
        w
        for method, template, answer in calls
        for w in strays(doc, method, template, answer.status_code, answer.json())
    ]
    assert not wrong, "\n".join(wrong)
