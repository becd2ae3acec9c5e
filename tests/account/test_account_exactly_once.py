"""Account writes are exactly once under an Idempotency-Key, their answers lost or not (issue 24).

The SQLite connection under the write is closed just after its commit (the
store's commit seam): the request happened but its answer is lost. The
retry with the same key must not do it again: one key issued (its secret
never kept: the retry is told so, with the key's id), one key revoked, one
session opened or ended.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import sqlalchemy as sa

from account.owners_kit import (  # type: ignore[import-not-found]
    NOW,
    Owner,
    new_season,
    owner,
    sign,
    site,
    siwe_text,
)
from tradeleague.accounts.tables import idempotency_keys
from tradeleague.api.account.tables import account_sessions
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.store import Store, open_store
from tradeleague.store.transactions import CommitPoint


@contextmanager
def answer_lost(store: Store, key: str) -> Iterator[list[str]]:
    """Close the connection just after the commit that records ``key``: its answer is lost."""
    cuts: list[str] = []

    def cut(at: CommitPoint, conn: sa.Connection) -> None:
        if at != "committed" or cuts:
            return
        keys = conn.execute(sa.select(idempotency_keys.c.key)).scalars().all()
        if key in keys:
            cuts.append(key)
            conn.connection.dbapi_connection.close()  # type: ignore[union-attr]
            conn.exec_driver_sql("SELECT 1")  # the driver's error: the connection is gone

    store.commit_fault = cut
    try:
        yield cuts
    finally:
        store.commit_fault = None


def _keyed(me: Owner, method: str, path: str, key: str) -> httpx.Response:
    headers = {"X-CSRF-Token": me.csrf, "Idempotency-Key": f'"{key}"'}
    answer: httpx.Response = me.http.request(method, path, headers=headers)
    return answer


def _login(me: Owner, clock: ReplayClock, key: str) -> tuple[dict[str, str], httpx.Response]:
    challenge = me.http.get("/api/v1/account/nonce").json()
    text = siwe_text(
        me.wallet, domain=challenge["domain"], nonce=challenge["nonce"], issued=clock.now()
    )
    body = {"message": text, "signature": sign(me.wallet, text)}
    return body, me.http.post("/api/v1/account/login", json=body, headers={"Idempotency-Key": key})


def _sessions(store: Store, wallet: str) -> int:
    query = sa.select(sa.func.count()).where(account_sessions.c.wallet == wallet)
    with store.engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def test_a_key_issued_under_a_lost_answer_is_issued_once_and_never_kept(sqlite_url: str) -> None:
    """S-SVC-1: a retry after the lost answer issues no second key; it names the first key's
    id and how to revoke it (409 key_shown_once); no secret is in the idempotency record."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        service = ScenarioService(store, clock)
        with site(service, clock) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            with answer_lost(store, "make-1") as cuts:
                lost = _keyed(me, "POST", "/api/v1/account/keys", "make-1")
            assert cuts == ["make-1"]
            assert lost.status_code == 503, lost.text
            again = _keyed(me, "POST", "/api/v1/account/keys", "make-1")
            assert again.status_code == 409, again.text
            assert again.headers["Idempotent-Replayed"] == "true"
            error = again.json()["error"]
            assert error["code"] == "key_shown_once"
            listed = me.http.get("/api/v1/account/keys").json()["keys"]
            assert [k["id"] for k in listed] == [error["key"]["id"]], "exactly one key exists"
            assert "key" not in error["key"], "the retry shows no secret"
            assert f"/api/v1/account/keys/{error['key']['id']}" in error["message"]

            made = _keyed(me, "POST", "/api/v1/account/keys", "make-2")
            assert made.status_code == 201, made.text
            secret = made.json()["key"]["key"]
            replayed = _keyed(me, "POST", "/api/v1/account/keys", "make-2")
            assert replayed.status_code == 409
            assert replayed.json()["error"]["key"]["id"] == made.json()["key"]["id"]
            assert len(me.http.get("/api/v1/account/keys").json()["keys"]) == 2
            with store.engine.connect() as conn:
                kept = conn.execute(sa.select(idempotency_keys.c.body)).scalars().all()
            assert len(kept) == 2, "make-1 and make-2 are recorded"
            assert not any(secret in str(body) for body in kept), "no secret is stored"
            bearer = {"Authorization": f"Bearer {secret}"}
            assert me.http.get("/api/v1/scenarios", headers=bearer).status_code == 200


def test_revoke_and_sign_out_retried_after_a_lost_answer_answer_as_first(
    sqlite_url: str,
) -> None:
    """S-SVC-1: a revoke or a sign-out retried with its key replays the first answer, never
    404 or 401; a second revoke or sign-out never runs."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        service = ScenarioService(store, clock)
        with site(service, clock) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            made = _keyed(me, "POST", "/api/v1/account/keys", "make")
            key_id = made.json()["key"]["id"]
            path = f"/api/v1/account/keys/{key_id}"
            with answer_lost(store, "revoke") as cuts:
                assert _keyed(me, "DELETE", path, "revoke").status_code == 503
            assert cuts == ["revoke"]
            again = _keyed(me, "DELETE", path, "revoke")
            assert again.status_code == 200, again.text
            assert again.headers["Idempotent-Replayed"] == "true"
            assert again.json()["key"]["id"] == key_id
            assert _keyed(me, "DELETE", path, "revoke").content == again.content
            assert _keyed(me, "DELETE", path, "revoke-2").status_code == 404, "revoked once"

            csrf_cookie = me.http.cookies.get("tl_csrf")
            session_cookie = me.http.cookies.get("tl_session")
            with answer_lost(store, "out") as cuts:
                assert _keyed(me, "POST", "/api/v1/account/logout", "out").status_code == 503
            assert cuts == ["out"]
            # the lost answer never cleared the cookies: the retry carries the ended session
            assert me.http.cookies.get("tl_session") == session_cookie
            assert me.http.cookies.get("tl_csrf") == csrf_cookie
            out = _keyed(me, "POST", "/api/v1/account/logout", "out")
            assert out.status_code == 200, out.text
            assert out.headers["Idempotent-Replayed"] == "true"
            assert out.json()["signed_out"] is True
            assert me.http.get("/api/v1/account").status_code == 401


def test_a_sign_in_retried_after_a_lost_answer_opens_one_session(sqlite_url: str) -> None:
    """S-SVC-1: the retry of a sign-in whose answer was lost opens no second session and says
    so (409 signed_in_once, the wallet named); no session secret is kept for it."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        service = ScenarioService(store, clock)
        with site(service, clock) as base, owner(base) as me:
            with answer_lost(store, "in-1") as cuts:
                body, lost = _login(me, clock, "in-1")
            assert cuts == ["in-1"]
            assert lost.status_code == 503, lost.text
            assert _sessions(store, me.wallet.address) == 1
            again = me.http.post(
                "/api/v1/account/login", json=body, headers={"Idempotency-Key": "in-1"}
            )
            assert again.status_code == 409, again.text
            assert again.headers["Idempotent-Replayed"] == "true"
            assert again.json()["error"]["code"] == "signed_in_once"
            assert again.json()["error"]["wallet"] == me.wallet.address
            assert "tl_session" not in again.headers.get("set-cookie", "")
            assert _sessions(store, me.wallet.address) == 1, "one session, never two"
            _, fresh = _login(me, clock, "in-2")
            assert fresh.status_code == 200, fresh.text
            assert me.http.get("/api/v1/account").status_code == 200


def test_an_agents_writes_retried_after_lost_answers_happen_once(sqlite_url: str) -> None:
    """S-SVC-1, W-REC-2: entering the agent and changing its prompt, each answer lost after
    its commit, are retried with their keys: one agent, one prompt change counted."""
    clock = ReplayClock(NOW)
    with open_store(sqlite_url) as store:
        new_season(store, clock)
        service = ScenarioService(store, clock)
        with site(service, clock) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            agent = {"name": "steady", "division": "open", "prompt": "Hold the index."}
            prompt = {"prompt": "Hold cash."}
            for path, body, key, status in (
                ("/api/v1/account/agent", agent, "enter", 201),
                ("/api/v1/account/agent/prompt", prompt, "prompt", 200),
            ):
                headers = {"X-CSRF-Token": me.csrf, "Idempotency-Key": key}
                with answer_lost(store, key) as cuts:
                    lost = me.http.post(path, json=body, headers=headers)
                assert cuts == [key]
                assert lost.status_code == 503, lost.text
                again = me.http.post(path, json=body, headers=headers)
                assert again.status_code == status, again.text
                assert again.headers["Idempotent-Replayed"] == "true"
            shown = me.http.get("/api/v1/account").json()["agent"]
            assert shown["prompt_changes_left_today"] == 2, "one change counted, not two"
