"""The account routes: sign in with a wallet, one weights agent, API keys.

Every route is under ``/api/v1/account`` and in the OpenAPI document. Reads
need the session cookie; every write made with it also needs the CSRF token
in an ``X-CSRF-Token`` header (double submit: it must equal the ``tl_csrf``
cookie and the session's token). Sign-in itself is guarded by its one-use
nonce instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

from fastapi import (
    APIRouter,
    BackgroundTasks,
    Cookie,
    Depends,
    FastAPI,
    Header,
    Path,
    Query,
    Request,
    Response,
)

from tradeleague.api.account.models import AgentIn, KeyIn, LoginIn, PromptIn
from tradeleague.api.account.owners import Owners
from tradeleague.api.account.sessions import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    SESSION_TTL,
    Session,
    Sessions,
)
from tradeleague.api.account.signin import ADDRESS_PATTERN, SignIn, message_for
from tradeleague.api.app import call, dumps
from tradeleague.api.models import ErrorOut
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ServiceError

__all__ = [
    "Accounts",
    "account_router",
    "accounts_of",
    "check_origin",
    "install_accounts",
    "retry_after",
    "session_cookies",
]

_T = TypeVar("_T")
_MAX_HOST_CHARS = 255


@dataclass(frozen=True, slots=True)
class Accounts:
    """Sign-in, sessions and owners' actions, shared by the JSON routes and the pages."""

    signin: SignIn
    sessions: Sessions
    owners: Owners


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


def _json(body: dict[str, Any], status: int = 200) -> Response:
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


def account_router() -> APIRouter:
    """Return the ``/api/v1/account`` routes."""
    router = APIRouter(
        prefix="/api/v1/account",
        tags=["account"],
        responses={code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422, 429)},
    )

    async def run(request: Request, work: Callable[[Accounts], Response]) -> Response:
        accounts = accounts_of(request)

        def guarded() -> Response:
            try:
                return work(accounts)
            except ServiceError as exc:
                return _error(exc, accounts.owners.service.clock.now())

        return await call(accounts.owners.service, guarded)

    def writer(accounts: Accounts, sent: WriteCredentials) -> Session:
        session = accounts.sessions.require(sent.cookie)
        accounts.sessions.check_csrf(session, sent.csrf_cookie, sent.csrf)
        return session

    @router.get("/nonce", summary="A sign-in nonce, with the domain and chain id to sign for")
    async def nonce(
        request: Request,
        address: Annotated[
            str | None,
            Query(
                pattern=ADDRESS_PATTERN,
                description="Your wallet's address: the answer then holds the message to sign.",
            ),
        ] = None,
    ) -> Response:
        def work(a: Accounts) -> Response:
            c = a.signin.nonce(request_host(request))
            body: dict[str, Any] = {"nonce": c.nonce, "domain": c.domain, "chain_id": c.chain_id}
            if address is not None:
                uri = f"{request.url.scheme}://{c.domain}/account"
                body["message"] = message_for(c, address, uri, a.owners.service.clock.now())
            return _json(body)

        return await run(request, work)

    @router.post("/login", summary="Sign in with a signed EIP-4361 message")
    async def login(body: LoginIn, request: Request) -> Response:
        def work(a: Accounts) -> Response:
            check_origin(request)
            wallet = a.signin.login(body.message, body.signature)
            cookie, csrf = a.sessions.open(wallet)
            response = _json({"wallet": wallet, "csrf_token": csrf})
            session_cookies(response, request, cookie, csrf)
            return response

        return await run(request, work)

    @router.post("/logout", summary="Sign out")
    async def logout(
        request: Request,
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            a.sessions.end(writer(a, sent))
            response = _json({"signed_out": True})
            response.delete_cookie(SESSION_COOKIE)
            response.delete_cookie(CSRF_COOKIE)
            return response

        return await run(request, work)

    @router.get("", summary="The signed-in account: agent, API keys, usage")
    async def account(request: Request, cookie: SessionCookie = None) -> Response:
        def work(a: Accounts) -> Response:
            return _json(a.owners.view(a.sessions.require(cookie).wallet))

        return await run(request, work)

    @router.post("/agent", status_code=201, summary="Create the wallet's weights agent")
    async def create_agent(
        body: AgentIn,
        request: Request,
        tasks: BackgroundTasks,
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet
            made = a.owners.create_agent(
                wallet,
                name=body.name,
                division=body.division,
                prompt=body.prompt,
                model=body.model,
                key=body.key,
            )
            _summary(a, tasks, made)
            return _json({"agent": made}, 201)

        return await run(request, work)

    @router.post("/agent/prompt", summary="Change the agent's prompt (three times a UTC day)")
    async def change_prompt(
        body: PromptIn,
        request: Request,
        tasks: BackgroundTasks,
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            made = a.owners.change_prompt(writer(a, sent).wallet, body.prompt)
            _summary(a, tasks, made)
            return _json({"agent": made})

        return await run(request, work)

    @router.put("/agent/key", summary="Replace the Pro agent's model key")
    async def replace_key(
        body: KeyIn,
        request: Request,
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet
            return _json({"agent": a.owners.replace_key(wallet, body.key)})

        return await run(request, work)

    @router.post("/agent/resume", summary="Resume the paused agent")
    async def resume(
        request: Request,
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet
            return _json({"agent": a.owners.resume(wallet)})

        return await run(request, work)

    @router.get("/keys", summary="The wallet's scenario API keys (never the keys themselves)")
    async def list_keys(request: Request, cookie: SessionCookie = None) -> Response:
        def work(a: Accounts) -> Response:
            wallet = a.sessions.require(cookie).wallet
            return _json({"keys": a.owners.list_keys(wallet), "usage": a.owners.usage(wallet)})

        return await run(request, work)

    @router.post("/keys", status_code=201, summary="Issue a scenario API key (shown this once)")
    async def create_key(
        request: Request,
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet
            return _json({"key": a.owners.create_key(wallet)}, 201)

        return await run(request, work)

    @router.delete("/keys/{key_id}", summary="Revoke a scenario API key")
    async def revoke_key(
        request: Request,
        key_id: Annotated[str, Path(max_length=64)],
        sent: Writer,
    ) -> Response:
        def work(a: Accounts) -> Response:
            wallet = writer(a, sent).wallet
            return _json({"key": a.owners.revoke_key(wallet, key_id)})

        return await run(request, work)

    return router


def _summary(accounts: Accounts, tasks: BackgroundTasks, agent: dict[str, Any]) -> None:
    summarize = accounts.owners.summarize
    if summarize is not None:
        tasks.add_task(summarize, str(agent["season"]), str(agent["id"]))


def install_accounts(app: FastAPI, accounts: Accounts) -> None:
    """Mount the account routes on ``app`` with ``accounts`` behind them."""
    app.state.accounts = accounts
    app.include_router(account_router())
