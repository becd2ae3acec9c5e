"""The account routes: sign in with a wallet, the account, API keys, and the formats' own.

Every route is under ``/api/v1/account`` and in the OpenAPI document. Reads
need the session cookie; every write made with it also needs the CSRF token
in an ``X-CSRF-Token`` header (double submit: it must equal the ``tl_csrf``
cookie and the session's token). Sign-in itself is guarded by its one-use
nonce instead. A format's desk (``plugin.OwnerDesk``: the weights league's
agent) adds its own routes, made with this module's kit (`answer`, `writer`,
`Writer`, `reply`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from fastapi import (
    APIRouter,
    Cookie,
    Depends,
    FastAPI,
    Header,
    Path,
    Query,
    Request,
    Response,
)

from tradeleague.accounts import Account, AccountHost, Tier
from tradeleague.accounts.idempotency import fingerprint, idempotent
from tradeleague.api.account.keys import WalletKeys
from tradeleague.api.account.models import (
    AccountOut,
    KeyIssuedOut,
    KeyRevokedOut,
    KeysOut,
    LoginIn,
    NonceOut,
    SignedInOut,
    SignedOutOut,
)
from tradeleague.api.account.plugin import OwnerDesk
from tradeleague.api.account.sessions import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    SESSION_TTL,
    Session,
    Sessions,
)
from tradeleague.api.account.signin import ADDRESS_PATTERN, SignIn, message_for
from tradeleague.api.app import IdempotencyHeader, call, dumps, idempotency_key
from tradeleague.api.models import ErrorOut
from tradeleague.api.write_limits import anonymous_write
from tradeleague.clock import Clock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ServiceError
from tradeleague.league.bodies import answer_of

__all__ = [
    "Accounts",
    "Writer",
    "account_router",
    "accounts_of",
    "answer",
    "check_origin",
    "desk_router",
    "install_accounts",
    "once",
    "reply",
    "retry_after",
    "session_cookies",
    "writer",
]

_MAX_HOST_CHARS = 255


@dataclass(frozen=True, slots=True)
class Accounts:
    """Sign-in, sessions, API keys and the formats' desks, shared by the JSON routes and pages."""

    signin: SignIn
    sessions: Sessions
    keys: WalletKeys
    desks: tuple[OwnerDesk, ...] = ()

    @property
    def service(self) -> AccountHost:
        """Return the service the accounts are kept in (its clock, its worker threads)."""
        return self.keys.service

    def view(self, wallet: str) -> dict[str, Any]:
        """Return the account's facts: the wallet, each format's, the API keys and usage."""
        shown: dict[str, Any] = {"wallet": wallet}
        for desk in self.desks:
            shown.update(desk.view(wallet))
        shown["api_keys"] = self.keys.list_keys(wallet)
        shown["usage"] = self.keys.usage(wallet)
        return shown


def accounts_of(request: Request) -> Accounts:
    """Return the app's `Accounts` (set by `install_accounts`)."""
    accounts: Accounts = request.app.state.accounts
    return accounts


def request_host(request: Request) -> str:
    """Return the request's host (what a sign-in message must name unless configured)."""
    return request.headers.get("host", "")[:_MAX_HOST_CHARS]


def check_origin(request: Request) -> None:
    """Refuse a sign-in posted from another site (login CSRF), when the browser says so.

    Raises
    ------
    ServiceError
        403 ``cross_site`` when an ``Origin`` header names another host.
    """
    origin = request.headers.get("origin")
    if origin is None:
        return
    if origin == "null" or urlsplit(origin).netloc.lower() != request_host(request).lower():
        raise ServiceError(403, "cross_site", "Sign in from this site's own page.")


def session_cookies(response: Response, request: Request, cookie: str, csrf: str) -> None:
    """Set the session cookie (HttpOnly) and the CSRF cookie the page reads."""
    secure = request.url.scheme == "https"
    age = int(SESSION_TTL.total_seconds())
    response.set_cookie(
        SESSION_COOKIE, cookie, max_age=age, httponly=True, samesite="lax", secure=secure
    )
    response.set_cookie(CSRF_COOKIE, csrf, max_age=age, samesite="strict", secure=secure)


def reply(body: dict[str, Any], status: int = 200) -> Response:
    """Return an account route's JSON answer, with the disclaimer."""
    return Response(
        dumps({**body, "disclaimer": DISCLAIMER}), status, media_type="application/json"
    )


def retry_after(exc: ServiceError, now: datetime) -> dict[str, str]:
    """Return the ``Retry-After`` header (whole seconds) of an error with a ``retry_at`` time."""
    at = exc.extra.get("retry_at")
    if exc.status != 429 or not isinstance(at, str):
        return {}
    moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    return {"Retry-After": str(max(1, math.ceil((moment - now).total_seconds())))}


def _error(exc: ServiceError, now: datetime) -> Response:
    body = exc.body()
    headers = retry_after(exc, now)
    return Response(dumps(body), exc.status, headers, media_type="application/json")


SessionCookie = Annotated[str | None, Cookie(alias=SESSION_COOKIE, include_in_schema=False)]
CsrfCookie = Annotated[str | None, Cookie(alias=CSRF_COOKIE, include_in_schema=False)]
CsrfHeader = Annotated[
    str | None, Header(alias="X-CSRF-Token", description="The session's CSRF token.")
]


@dataclass(frozen=True)
class WriteCredentials:
    """What a cookie-authenticated write carries: the session cookie and both CSRF halves."""

    cookie: str | None
    csrf_cookie: str | None
    csrf: str | None


def _write_credentials(
    cookie: SessionCookie = None, csrf_cookie: CsrfCookie = None, csrf: CsrfHeader = None
) -> WriteCredentials:
    return WriteCredentials(cookie, csrf_cookie, csrf)


Writer = Annotated[WriteCredentials, Depends(_write_credentials)]
"""A write route's credentials, checked by ``writer`` inside the route's work."""


async def answer(request: Request, work: Callable[[Accounts], Response]) -> Response:
    """Answer an account route with ``work`` run in a worker thread; a refusal is its JSON error."""
    accounts = accounts_of(request)

    def guarded() -> Response:
        try:
            return work(accounts)
        except ServiceError as exc:
            return _error(exc, accounts.service.clock.now())

    return await call(accounts.service, guarded)


def writer(accounts: Accounts, sent: WriteCredentials) -> Session:
    """Return the session of a cookie-authenticated write, its CSRF token checked.

    Raises
    ------
    ServiceError
        401 without a session; 403 when the token is missing or wrong.
    """
    session = accounts.sessions.require(sent.cookie)
    accounts.sessions.check_csrf(session, sent.csrf_cookie, sent.csrf)
    return session


ACCOUNT_IDEMPOTENCY_TTL = timedelta(hours=24)
"""How long an account write's ``Idempotency-Key`` is kept after its first use (Stripe's)."""


@dataclass(frozen=True, slots=True)
class _Window:
    idempotency_ttl: timedelta = ACCOUNT_IDEMPOTENCY_TTL


class _OnceHost:
    """The account host as `idempotent` needs it: its clock, the window, its transactions."""

    def __init__(self, host: AccountHost) -> None:
        self.clock: Clock = host.clock
        self.preset = _Window()
        self._ledger = host.ledger

    def write(
        self, doing: str, *, enclosing: bool = False
    ) -> AbstractContextManager[sa.Connection]:
        return self._ledger.write(doing, enclosing=enclosing)

    def read(self, doing: str) -> AbstractContextManager[sa.Connection]:
        return self._ledger.read(doing)


Act = Callable[[], tuple[int, dict[str, Any]]]
"""An account write's work: its status and body (the disclaimer is added)."""


def once(
    accounts: Accounts,
    scope: str,
    key: str | None,
    digest: str,
    act: Act,
    *,
    stored: Callable[[int, str], tuple[int, str]] | None = None,
) -> tuple[Response, bool]:
    """Answer an account write at most once per ``scope`` and ``key`` (S-SVC-1).

    Without a key ``act`` just runs. With one, the key's claim, everything
    ``act`` writes and its answer commit in one transaction (`idempotent`), so
    a retry after a lost answer gets the first answer (``Idempotent-Replayed:
    true``), or what ``stored`` made of it when the answer held a secret shown
    once. Returns the response and whether ``act`` ran in this request.
    """
    if key is None:
        status, body = act()
        return reply(body, status), True
    ran = False

    def action() -> tuple[int, str]:
        nonlocal ran
        ran = True
        status, body = act()
        return status, dumps({**body, "disclaimer": DISCLAIMER})

    # the scope is the account's name; the tier plays no part in a key's scope
    status, text, replayed = idempotent(
        _OnceHost(accounts.service), Account(scope, Tier.FREE), key, digest, action, stored=stored
    )
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return Response(text, status, headers, media_type="application/json"), ran and not replayed


def _key_shown_once(status: int, text: str) -> tuple[int, str]:
    """Return what a key-issuing request records for its retries: the key's id, no secret."""
    if status != 201:
        return status, text
    made = {k: v for k, v in json.loads(text)["key"].items() if k != "key"}
    refusal = ServiceError(
        409,
        "key_shown_once",
        f"This Idempotency-Key already issued API key {made['id']}, whose secret was shown "
        "only in that first answer: if it was not kept, revoke it with DELETE "
        f"/api/v1/account/keys/{made['id']} and issue a new one with a new Idempotency-Key.",
        {"key": made},
    )
    return 409, dumps({**refusal.body(), "disclaimer": DISCLAIMER})


def _signed_in_once(status: int, text: str) -> tuple[int, str]:
    """Return what a sign-in records for its retries: the wallet, never its session."""
    if status != 200:
        return status, text
    refusal = ServiceError(
        409,
        "signed_in_once",
        "This Idempotency-Key already signed in, and its session cookie was set only in that "
        "first answer: ask a new nonce and sign in again.",
        {"wallet": json.loads(text)["wallet"]},
    )
    return 409, dumps({**refusal.body(), "disclaimer": DISCLAIMER})


_MESSAGE_ADDRESS = re.compile(r"[^\n]*\n(0x[0-9a-fA-F]{40})\n")


def desk_router() -> APIRouter:
    """Return an empty router under ``/api/v1/account``, documented as the account's routes."""
    return APIRouter(
        prefix="/api/v1/account",
        tags=["account"],
        responses={code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422, 429)},
    )


def account_router() -> APIRouter:
    """Return the ``/api/v1/account`` routes every server has (sign-in, the account, keys)."""
    router = desk_router()

    @router.get(
        "/nonce",
        summary="A sign-in nonce, with the domain and chain id to sign for",
        description=(
            "Start signing in: get a one-time nonce (and, with ?address=, the EIP-4361 "
            "message to sign). Then POST the signed message to /api/v1/account/login. Public;"
            " no quota."
        ),
        responses=answer_of(NonceOut),
        dependencies=[Depends(anonymous_write)],  # it writes the nonce, with no account yet
    )
    async def nonce(
        request: Request,
        address: Annotated[
            str | None,
            Query(
                pattern=ADDRESS_PATTERN,
                description=("Your wallet's address: the answer then holds the message to sign."),
            ),
        ] = None,
    ) -> Response:
        def work(a: Accounts) -> Response:
            c = a.signin.nonce(request_host(request))
            body: dict[str, Any] = {"nonce": c.nonce, "domain": c.domain, "chain_id": c.chain_id}
            if address is not None:
                uri = f"{request.url.scheme}://{c.domain}/account"
                body["message"] = message_for(c, address, uri, a.service.clock.now())
            return reply(body)

        return await answer(request, work)

    @router.post(
        "/login",
        summary="Sign in with a signed EIP-4361 message",
        description=(
            "Sign in with the message from /nonce and the wallet's signature: sets the "
            "session cookie and answers the CSRF token every write must send. No quota. "
            "With an Idempotency-Key, a retry opens no second session: it answers 409 "
            "signed_in_once with the wallet (the session cookie is set in the first answer "
            "only; no session secret is kept for a retry), or a refusal as it first was."
        ),
        responses=answer_of(SignedInOut),
        dependencies=[Depends(anonymous_write)],
    )
    async def login(
        body: LoginIn, request: Request, idempotency: IdempotencyHeader = None
    ) -> Response:
        key = idempotency_key(idempotency, None)
        found = _MESSAGE_ADDRESS.match(body.message.replace("\r\n", "\n"))
        scope = f"sign-in:{found.group(1).lower() if found else '-'}"
        digest = fingerprint(
            "POST", "/account/login", {"message": body.message, "signature": body.signature}
        )

        def work(a: Accounts) -> Response:
            check_origin(request)
            opened: list[tuple[str, str]] = []

            def act() -> tuple[int, dict[str, Any]]:
                wallet = a.signin.login(body.message, body.signature)
                opened.append(a.sessions.open(wallet))
                return 200, {"wallet": wallet, "csrf_token": opened[0][1]}

            response, ran = once(a, scope, key, digest, act, stored=_signed_in_once)
            if ran and response.status_code == 200:
                session_cookies(response, request, *opened[0])
            return response

        return await answer(request, work)

    @router.post(
        "/logout",
        summary="Sign out",
        description=(
            "End the session and clear its cookies. Needs the session and its CSRF token. "
            "With an Idempotency-Key, a retry (the session already ended) gets the first "
            "answer again."
        ),
        responses=answer_of(SignedOutOut),
    )
    async def logout(
        request: Request,
        sent: Writer,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        key = idempotency_key(idempotency, None)

        def work(a: Accounts) -> Response:
            if key is None:
                session = writer(a, sent)
            else:  # its retry comes with the session it ended
                seen = a.sessions.read(sent.cookie, ended=True)
                if seen is None:
                    raise ServiceError(401, "not_signed_in", "Sign in with your wallet first.")
                a.sessions.check_csrf(seen, sent.csrf_cookie, sent.csrf)
                session = seen
            digest = fingerprint("POST", "/account/logout", {"session": session.id_hash})

            def act() -> tuple[int, dict[str, Any]]:
                a.sessions.end(session)
                return 200, {"signed_out": True}

            response, _ = once(a, session.wallet, key, digest, act)
            if response.status_code == 200:
                response.delete_cookie(SESSION_COOKIE)
                response.delete_cookie(CSRF_COOKIE)
            return response

        return await answer(request, work)

    @router.get(
        "",
        summary="The signed-in account: agent, API keys, usage",
        description=(
            "Return the signed-in account: its wallet, each format's facts (the weights "
            "agent), its API keys and this month's usage. Needs the session cookie."
        ),
        responses=answer_of(AccountOut),
    )
    async def account(request: Request, cookie: SessionCookie = None) -> Response:
        def work(a: Accounts) -> Response:
            return reply(a.view(a.sessions.require(cookie).wallet))

        return await answer(request, work)

    @router.get(
        "/keys",
        summary="The wallet's scenario API keys (never the keys themselves)",
        description=(
            "List the wallet's scenario API keys (ids and prefixes, never the keys) and this "
            "month's usage. Needs the session cookie."
        ),
        responses=answer_of(KeysOut),
    )
    async def list_keys(request: Request, cookie: SessionCookie = None) -> Response:
        def work(a: Accounts) -> Response:
            wallet = a.sessions.require(cookie).wallet
            return reply({"keys": a.keys.list_keys(wallet), "usage": a.keys.usage(wallet)})

        return await answer(request, work)

    @router.post(
        "/keys",
        status_code=201,
        summary="Issue a scenario API key (shown this once)",
        description=(
            "Issue a scenario API key for the programs' API and MCP; the key is in this "
            "answer only. Needs the session and its CSRF token; no quota. With an "
            "Idempotency-Key, a retry issues no second key: it answers 409 key_shown_once "
            "with the first key's id and prefix (its secret is kept nowhere: if the first "
            "answer was lost, revoke that key by its id and issue a new one with a new key)."
        ),
        responses=answer_of(KeyIssuedOut, 201),
    )
    async def create_key(
        request: Request,
        sent: Writer,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        key = idempotency_key(idempotency, None)
        digest = fingerprint("POST", "/account/keys", {})

        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet

            def act() -> tuple[int, dict[str, Any]]:
                return 201, {"key": a.keys.create_key(wallet)}

            return once(a, wallet, key, digest, act, stored=_key_shown_once)[0]

        return await answer(request, work)

    @router.delete(
        "/keys/{key_id}",
        summary="Revoke a scenario API key",
        description=(
            "Revoke a key by its id (from GET /api/v1/account/keys); every server refuses it "
            "within a second. Needs the session and its CSRF token. With an "
            "Idempotency-Key, a retry gets the first answer again."
        ),
        responses=answer_of(KeyRevokedOut),
    )
    async def revoke_key(
        request: Request,
        key_id: Annotated[
            str, Path(max_length=64, description="The key's id (GET /api/v1/account/keys).")
        ],
        sent: Writer,
        idempotency: IdempotencyHeader = None,
    ) -> Response:
        key = idempotency_key(idempotency, None)
        digest = fingerprint("DELETE", f"/account/keys/{key_id}", {})

        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet

            def act() -> tuple[int, dict[str, Any]]:
                return 200, {"key": a.keys.revoke_key(wallet, key_id)}

            return once(a, wallet, key, digest, act)[0]

        return await answer(request, work)

    return router


def install_accounts(app: FastAPI, accounts: Accounts) -> None:
    """Mount the account routes, then each desk's, on ``app`` with ``accounts`` behind them."""
    app.state.accounts = accounts
    app.include_router(account_router())
    for desk in accounts.desks:
        app.include_router(desk.router())
