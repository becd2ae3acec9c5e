"""The account pages: sign in, create and tend the one weights agent, API keys.

Server-rendered from the same `Owners` functions as ``/api/v1/account``. Every
form posts ``application/x-www-form-urlencoded`` with a hidden ``csrf_token``
that must equal the ``tl_csrf`` cookie and the session's token (double
submit); the answer is the page again, with what happened or why not. A new
API key is shown once, in the answer to the form that made it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from fastapi import APIRouter, BackgroundTasks, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment

from tradeleague.api.account.routes import (
    Accounts,
    accounts_of,
    check_origin,
    request_host,
    retry_after,
    session_cookies,
)
from tradeleague.api.account.sessions import CSRF_COOKIE, SESSION_COOKIE, Session
from tradeleague.api.account.signin import message_for
from tradeleague.api.app import call
from tradeleague.errors import ServiceError
from tradeleague.formats.weights import Division

__all__ = ["install_account_pages"]

_ADDRESS: Final = re.compile(r"0x[0-9a-fA-F]{40}")
_MAX_FIELD: Final = 20_000


def _field(form: dict[str, str], name: str) -> str:
    return form.get(name, "")[:_MAX_FIELD]


async def _form(request: Request) -> dict[str, str]:
    try:
        parsed = await request.form(max_files=0, max_fields=20)
    except Exception:  # a malformed body is an empty form: the action then says what is missing
        return {}
    return {k: v for k, v in parsed.items() if isinstance(v, str)}


def install_account_pages(app: FastAPI, env: Environment) -> None:
    """Add ``/account`` and its forms to ``app`` (the accounts are ``app.state.accounts``)."""
    router = APIRouter(include_in_schema=False)

    def render(
        accounts: Accounts,
        request: Request,
        session: Session | None,
        status: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        view = accounts.owners.view(session.wallet) if session is not None else None
        extra: dict[str, Any] = {}
        address = request.query_params.get("address", "")[:42]
        if view is None and _ADDRESS.fullmatch(address):
            challenge = accounts.signin.nonce(request_host(request))
            uri = f"{request.url.scheme}://{challenge.domain}/account"
            now = accounts.owners.service.clock.now()
            extra = {
                "address": address,
                "message": message_for(challenge, address, uri, now),
                "domain": challenge.domain,
                "chain_id": challenge.chain_id,
            }
        body = env.get_template("account.html").render(
            title="Your account",
            acct=view,
            csrf=session.csrf if session is not None else "",
            **extra,
            **context,
        )
        return HTMLResponse(body, status_code=status)

    async def run(request: Request, work: Callable[[Accounts], Response]) -> Response:
        accounts = accounts_of(request)
        return await call(accounts.owners.service, lambda: work(accounts))

    @router.get("/account", response_class=HTMLResponse)
    async def account(request: Request) -> Response:
        cookie = request.cookies.get(SESSION_COOKIE)
        return await run(request, lambda a: render(a, request, a.sessions.read(cookie)))

    @router.post("/account/login", response_class=HTMLResponse)
    async def login(request: Request) -> Response:
        form = await _form(request)

        def work(a: Accounts) -> Response:
            try:
                check_origin(request)
                wallet = a.signin.login(_field(form, "message"), _field(form, "signature"))
            except ServiceError as exc:
                return render(a, request, None, exc.status, problem=exc.message)
            cookie, csrf = a.sessions.open(wallet)
            response = RedirectResponse("/account", status_code=303)
            session_cookies(response, request, cookie, csrf)
            return response

        return await run(request, work)

    def action(path: str, do: Callable[[Accounts, Session, dict[str, str]], str | None]) -> None:
        async def handle(request: Request, tasks: BackgroundTasks) -> Response:
            form = await _form(request)
            cookie = request.cookies.get(SESSION_COOKIE)
            csrf_cookie = request.cookies.get(CSRF_COOKIE)

            def work(a: Accounts) -> Response:
                session = a.sessions.read(cookie)
                if session is None:
                    return render(a, request, None, 401, problem="Sign in with your wallet first.")
                try:
                    a.sessions.check_csrf(session, csrf_cookie, form.get("csrf_token"))
                    notice = do(a, session, form)
                except ServiceError as exc:
                    refused = render(a, request, session, exc.status, problem=exc.message)
                    refused.headers.update(retry_after(exc, a.owners.service.clock.now()))
                    return refused
                if path == "/account/logout":
                    response = RedirectResponse("/account", status_code=303)
                    response.delete_cookie(SESSION_COOKIE)
                    response.delete_cookie(CSRF_COOKIE)
                    return response
                if path == "/account/keys":
                    return render(a, request, session, 200, new_key=notice, notice="Key created.")
                summarize = a.owners.summarize
                if summarize is not None and path in ("/account/agent", "/account/agent/prompt"):
                    agent = a.owners.view(session.wallet)["agent"]
                    if agent is not None:
                        tasks.add_task(summarize, str(agent["season"]), str(agent["id"]))
                return render(a, request, session, 200, notice=notice)

            response = await run(request, work)
            if response.background is None:
                response.background = tasks
            return response

        router.add_api_route(path, handle, methods=["POST"], response_class=HTMLResponse)

    def logout(a: Accounts, s: Session, form: dict[str, str]) -> str | None:
        a.sessions.end(s)
        return None

    def create_agent(a: Accounts, s: Session, form: dict[str, str]) -> str | None:
        division = _field(form, "division")
        if division not in (d.value for d in Division):
            raise ServiceError(422, "invalid_request", "Choose the Open or the Pro division.")
        pro = division == Division.PRO.value
        a.owners.create_agent(
            s.wallet,
            name=_field(form, "name"),
            division=Division(division),
            prompt=_field(form, "prompt"),
            model=_field(form, "model") if pro else None,
            key=_field(form, "key") if pro else None,
        )
        return "Your agent is in the season."

    def prompt(a: Accounts, s: Session, form: dict[str, str]) -> str | None:
        a.owners.change_prompt(s.wallet, _field(form, "prompt"))
        return "The new prompt takes effect from the next round."

    def key(a: Accounts, s: Session, form: dict[str, str]) -> str | None:
        a.owners.replace_key(s.wallet, _field(form, "key"))
        return "The key is replaced; resume the agent if it was paused."

    def resume(a: Accounts, s: Session, form: dict[str, str]) -> str | None:
        a.owners.resume(s.wallet)
        return "The agent plays again from the next round."

    def new_key(a: Accounts, s: Session, form: dict[str, str]) -> str | None:
        return str(a.owners.create_key(s.wallet)["key"])

    action("/account/logout", logout)
    action("/account/agent", create_agent)
    action("/account/agent/prompt", prompt)
    action("/account/agent/key", key)
    action("/account/agent/resume", resume)
    action("/account/keys", new_key)

    @router.post("/account/keys/{key_id}/revoke", response_class=HTMLResponse)
    async def revoke(key_id: str, request: Request) -> Response:
        form = await _form(request)
        cookie = request.cookies.get(SESSION_COOKIE)
        csrf_cookie = request.cookies.get(CSRF_COOKIE)

        def work(a: Accounts) -> Response:
            session = a.sessions.read(cookie)
            if session is None:
                return render(a, request, None, 401, problem="Sign in with your wallet first.")
            try:
                a.sessions.check_csrf(session, csrf_cookie, form.get("csrf_token"))
                a.owners.revoke_key(session.wallet, key_id[:64])
            except ServiceError as exc:
                return render(a, request, session, exc.status, problem=exc.message)
            return render(a, request, session, 200, notice="The key is revoked.")

        return await run(request, work)

    app.include_router(router)
