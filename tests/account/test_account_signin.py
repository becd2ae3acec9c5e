"""Sign-in with Ethereum, one agent per wallet, three prompt changes a day (issue 15)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from eth_account import Account

from account.owners_kit import NOW, new_season, owner, sign, site, siwe_text  # type: ignore[import-not-found]
from tradeleague.api.account.setup import AccountSettings
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights.owners import OwnerConfig
from tradeleague.store import open_store

OPEN_AGENT = {"name": "steady", "division": "open", "prompt": "Hold the index, trim losers."}


def test_wallet_signs_in_creates_open_agent_and_changes_prompt_three_times(
    sqlite_url: str,
) -> None:
    """W-REC-1, W-REC-2: one agent per wallet; the fourth prompt change in a UTC day is 429."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        season = new_season(store, clock)
        service = ScenarioService(store, clock)
        with site(service, clock) as base, owner(base) as me:
            assert me.http.get("/api/v1/account").status_code == 401
            signed = me.login(clock)
            assert signed.status_code == 200, signed.text
            assert signed.json()["wallet"] == me.wallet.address
            made = me.write("POST", "/api/v1/account/agent", OPEN_AGENT)
            assert made.status_code == 201, made.text
            agent = made.json()["agent"]
            assert (agent["season"], agent["division"], agent["model"]) == (
                season,
                "open",
                "local:house",
            )
            for n in range(3):
                clock.advance(timedelta(minutes=5))
                changed = me.write("POST", "/api/v1/account/agent/prompt", {"prompt": f"p{n}"})
                assert changed.status_code == 200, changed.text
                assert changed.json()["agent"]["prompt"] == f"p{n}"
                assert changed.json()["agent"]["prompt_changes_left_today"] == 2 - n
            fourth = me.write("POST", "/api/v1/account/agent/prompt", {"prompt": "p3"})
            assert fourth.status_code == 429
            assert fourth.headers["Retry-After"] == str((24 * 60 - 9 * 60 - 15) * 60)
            assert fourth.json()["error"]["retry_at"] == "2026-10-07T00:00:00Z"
            again = me.write("POST", "/api/v1/account/agent", {**OPEN_AGENT, "name": "second"})
            assert again.status_code == 409
            assert again.json()["error"]["code"] == "agent_exists"
            view = me.http.get("/api/v1/account").json()
            assert view["agent"]["prompt"] == "p2"
            clock.advance(timedelta(days=1))
            next_day = me.write("POST", "/api/v1/account/agent/prompt", {"prompt": "p4"})
            assert next_day.status_code == 200


def test_replayed_expired_and_foreign_messages_are_refused(sqlite_url: str) -> None:
    """A nonce is used once and expires; the message names this domain and chain."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        service = ScenarioService(store, clock)
        with site(service, clock) as base, owner(base) as me:
            challenge = me.http.get("/api/v1/account/nonce").json()
            assert challenge["chain_id"] == 1
            assert challenge["domain"] == base.removeprefix("http://")
            text = siwe_text(me.wallet, domain=challenge["domain"], nonce=challenge["nonce"])
            body = {"message": text, "signature": sign(me.wallet, text)}
            assert me.http.post("/api/v1/account/login", json=body).status_code == 200
            replayed = me.http.post("/api/v1/account/login", json=body)
            assert (replayed.status_code, replayed.json()["error"]["code"]) == (
                401,
                "unknown_nonce",
            )

            def refused(**fields: object) -> str:
                answer = me.login(clock, **fields)
                assert answer.status_code == 401, answer.text
                return str(answer.json()["error"]["code"])

            assert refused(domain="evil.example") == "wrong_domain"
            assert refused(uri="https://evil.example/account") == "wrong_uri"
            assert refused(uri=f"https://{challenge['domain']}@evil.example/") == "wrong_uri"
            assert refused(chain_id=5) == "wrong_chain"
            assert refused(expires=NOW - timedelta(seconds=1)) == "message_expired"
            challenge = me.http.get("/api/v1/account/nonce").json()
            clock.advance(timedelta(minutes=11))
            late = siwe_text(me.wallet, domain=challenge["domain"], nonce=challenge["nonce"])
            answer = me.http.post(
                "/api/v1/account/login", json={"message": late, "signature": sign(me.wallet, late)}
            )
            assert answer.json()["error"]["code"] == "unknown_nonce"
            challenge = me.http.get("/api/v1/account/nonce").json()
            text = siwe_text(me.wallet, domain=challenge["domain"], nonce=challenge["nonce"])
            forged = sign(Account.create(), text)
            answer = me.http.post(
                "/api/v1/account/login", json={"message": text, "signature": forged}
            )
            assert answer.json()["error"]["code"] == "invalid_signature"
            challenge = me.http.get("/api/v1/account/nonce").json()
            text = siwe_text(me.wallet, domain=challenge["domain"], nonce=challenge["nonce"])
            body = {"message": text, "signature": sign(me.wallet, text)}
            elsewhere = {"Origin": "https://evil.example"}
            cross = me.http.post("/api/v1/account/login", json=body, headers=elsewhere)
            assert (cross.status_code, cross.json()["error"]["code"]) == (403, "cross_site")
            here = {"Origin": base}
            assert me.http.post("/api/v1/account/login", json=body, headers=here).status_code == 200
            junk = me.http.post("/api/v1/account/login", json={"message": "hi", "signature": "x"})
            assert junk.json()["error"]["code"] == "invalid_message"


def test_cookie_writes_need_the_csrf_token(sqlite_url: str) -> None:
    """A write with the session cookie but without the double-submitted token is 403."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        with site(ScenarioService(store, clock), clock) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            bare = me.http.post("/api/v1/account/agent", json=OPEN_AGENT)
            assert (bare.status_code, bare.json()["error"]["code"]) == (403, "csrf_failed")
            wrong = me.http.post(
                "/api/v1/account/agent", json=OPEN_AGENT, headers={"X-CSRF-Token": "nope"}
            )
            assert wrong.status_code == 403
            assert me.write("POST", "/api/v1/account/logout").status_code == 200
            assert me.http.get("/api/v1/account").status_code == 401


def test_hostile_agent_bodies_are_refused_with_reasons(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An owner cannot point the server at an address of its choosing, name an environment
    variable for its key, or send oversized, blank or unknown fields."""
    monkeypatch.delenv("TRADELEAGUE_MASTER_KEY", raising=False)
    monkeypatch.delenv("TRADELEAGUE_MASTER_KEY_FILE", raising=False)
    clock = ReplayClock(NOW)
    allowed = "http://127.0.0.1:9/v1"
    settings = AccountSettings(owners=OwnerConfig(endpoints=(allowed,)))
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        with site(ScenarioService(store, clock), clock, settings) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            pro = {"name": "p", "division": "pro", "prompt": "x", "key": "sk-0123456789abcdef"}
            cases = [
                ({**pro, "model": "openai:m@http://169.254.169.254/v1"}, "endpoint_not_allowed"),
                ({**pro, "model": "openai:llama3@ollama"}, "endpoint_not_allowed"),
                ({**pro, "model": f"openai:m@{allowed},key_env=HOME"}, "invalid_model"),
                ({**pro, "model": "baseline:cash"}, "invalid_model"),
                ({**pro, "model": f"openai:m@{allowed}", "key": None}, "invalid_key"),
                ({**pro, "model": f"openai:m@{allowed}", "key": "sk-\u00e9\u0000"}, "invalid_key"),
                ({**pro, "model": f"openai:m@{allowed}"}, "vault_unavailable"),
                ({**OPEN_AGENT, "name": "n" * 41}, "invalid_request"),
                ({**OPEN_AGENT, "prompt": " \u200b "}, "invalid_request"),
                ({**OPEN_AGENT, "owner": "0xsomeone"}, "invalid_request"),
                ({**OPEN_AGENT, "division": "vip"}, "invalid_request"),
            ]
            for body, code in cases:
                answer = me.write("POST", "/api/v1/account/agent", body)
                assert answer.status_code in (422, 503), (body, answer.text)
                assert answer.json()["error"]["code"] == code, (body, answer.text)
            assert me.http.get("/api/v1/account").json()["agent"] is None


def test_every_cookie_write_needs_the_csrf_token(sqlite_url: str) -> None:
    """Each account write, JSON route and page form alike, is refused (403) with the session
    cookie but without the double-submitted token, a wrong one, or without the token cookie;
    nothing changes."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        with site(ScenarioService(store, clock), clock) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            key = me.write("POST", "/api/v1/account/keys").json()["key"]
            api: list[tuple[str, str, object]] = [
                ("POST", "/api/v1/account/agent", OPEN_AGENT),
                ("POST", "/api/v1/account/agent/prompt", {"prompt": "p"}),
                ("PUT", "/api/v1/account/agent/key", {"key": "sk-0123456789abcdef"}),
                ("POST", "/api/v1/account/agent/resume", None),
                ("POST", "/api/v1/account/keys", None),
                ("DELETE", f"/api/v1/account/keys/{key['id']}", None),
                ("POST", "/api/v1/account/logout", None),
            ]
            for method, path, body in api:
                for headers in ({}, {"X-CSRF-Token": "forged"}, {"X-CSRF-Token": ""}):
                    answer = me.http.request(method, path, json=body, headers=headers)
                    assert answer.status_code == 403, (method, path, headers, answer.text)
                    assert answer.json()["error"]["code"] == "csrf_failed", (method, path)
            # The right header without the token's cookie is refused too (double submit).
            cookie = me.http.cookies.get("tl_csrf")
            assert cookie == me.csrf
            me.http.cookies.delete("tl_csrf")
            bare = me.write("POST", "/api/v1/account/keys")
            assert (bare.status_code, bare.json()["error"]["code"]) == (403, "csrf_failed")
            me.http.cookies.set("tl_csrf", cookie)
            forms = {
                "/account/agent": {"name": "f", "division": "open", "prompt": "p"},
                "/account/agent/prompt": {"prompt": "p"},
                "/account/agent/key": {"key": "sk-0123456789abcdef"},
                "/account/agent/resume": {},
                "/account/keys": {},
                f"/account/keys/{key['id']}/revoke": {},
                "/account/logout": {},
            }
            for path, form in forms.items():
                for token in ({}, {"csrf_token": "forged"}):
                    answer = me.http.post(path, data={**form, **token})
                    assert answer.status_code == 403, (path, token, answer.text)
                    assert "reload the page" in answer.text, path
            view = me.http.get("/api/v1/account")
            assert view.status_code == 200  # still signed in: logout was refused
            assert view.json()["agent"] is None
            assert [k["revoked_at"] for k in view.json()["api_keys"]] == [None]


def test_the_domain_and_chain_id_come_from_the_settings(sqlite_url: str) -> None:
    """--siwe-domain and --chain-id: the nonce states them; a message for them signs in, one
    for the request's own host or chain 1 is refused."""
    clock = ReplayClock(NOW)
    settings = AccountSettings(siwe_domain="league.example", chain_id=137)
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        with site(ScenarioService(store, clock), clock, settings) as base, owner(base) as me:
            challenge = me.http.get("/api/v1/account/nonce").json()
            assert (challenge["domain"], challenge["chain_id"]) == ("league.example", 137)
            host = base.removeprefix("http://")
            assert me.login(clock, domain=host, chain_id=137).json()["error"]["code"] == (
                "wrong_domain"
            )
            assert me.login(clock).json()["error"]["code"] == "wrong_chain"
            assert me.login(clock, chain_id=137).status_code == 200
            assert me.http.get("/api/v1/account").json()["wallet"] == me.wallet.address
