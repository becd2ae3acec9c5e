"""The account pages: sign in, API keys, and each format's section (the weights agent).

Server-rendered from the same `Accounts` as ``/api/v1/account``: the site's
composition serves them, as they join the account routes (``api.account``) to
the site's templates (``web``), which never import each other. Each format's
desk (``api.account.plugin.OwnerDesk``) adds its facts, its section and its
forms. Every form posts ``application/x-www-form-urlencoded`` with a hidden
``csrf_token`` that must equal the ``tl_csrf`` cookie and the session's token
(double submit); the answer is the page again, with what happened or why not.
A new API key is shown once, in the answer to the form that made it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from fastapi import APIRouter, BackgroundTasks, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from tradeleague.api.account.plugin import PageAction
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
from tradeleague.api.write_limits import anonymous_write, retry_later
from tradeleague.errors import ServiceError
from tradeleague.web.render import Pages

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


def install_account_pages(app: FastAPI, pages: Pages, accounts: Accounts) -> None:
    """Add ``/account`` and its forms, the desks' among them, to ``app``.

    The pages serve ``app.state.accounts`` (``accounts``, set by ``install_accounts``);
    each desk's templates are among ``pages``' own.
    """
    router = APIRouter(include_in_schema=False)
    env = pages.env

    def render(
        accounts: Accounts,
        request: Request,
        session: Session | None,
        status: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        view = accounts.view(session.wallet) if session is not None else None
        csrf = session.csrf if session is not None else ""
        extra: dict[str, Any] = {}
        if view is not None:
            part = {"acct": view, "csrf": csrf}
            extra["facts"] = Markup("").join(
                pages.fragment(d.facts, **part) + "\n" for d in accounts.desks
            )
            extra["sections"] = Markup("").join(
                "\n" + pages.fragment(d.section, **part) for d in accounts.desks
            )
        address = request.query_params.get("address", "")[:42]
        if view is None and _ADDRESS.fullmatch(address):
            challenge = accounts.signin.nonce(request_host(request))
            uri = f"{request.url.scheme}://{challenge.domain}/account"
            now = accounts.service.clock.now()
            extra = {
                "address": address,
                "message": message_for(challenge, address, uri, now),
                "domain": challenge.domain,
                "chain_id": challenge.chain_id,
            }
        body = env.get_template("account.html").render(
            title="Your account",
            acct=view,
            csrf=csrf,
            **extra,
            **context,
        )
        return HTMLResponse(body, status_code=status)

    async def run(request: Request, work: Callable[[Accounts], Response]) -> Response:
        accounts = accounts_of(request)
        return await call(accounts.service, lambda: work(accounts))

    @router.get("/account", response_class=HTMLResponse)
    async def account(request: Request) -> Response:
        cookie = request.cookies.get(SESSION_COOKIE)
        return await run(request, lambda a: render(a, request, a.sessions.read(cookie)))

    @router.post("/account/login", response_class=HTMLResponse)
    async def login(request: Request) -> Response:
        form = await _form(request)

        def work(a: Accounts) -> Response:
            try:
                anonymous_write(request)
            except ServiceError as exc:
                return retry_later(render(a, request, None, exc.status, problem=exc.message), exc)
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

    def action(
        path: str, do: Callable[[Accounts, Session, dict[str, str], BackgroundTasks], str | None]
    ) -> None:
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
                    notice = do(a, session, form, tasks)
                except ServiceError as exc:
                    refused = render(a, request, session, exc.status, problem=exc.message)
                    refused.headers.update(retry_after(exc, a.service.clock.now()))
                    return refused
                if path == "/account/logout":
                    response = RedirectResponse("/account", status_code=303)
                    response.delete_cookie(SESSION_COOKIE)
                    response.delete_cookie(CSRF_COOKIE)
                    return response
                if path == "/account/keys":
                    return render(a, request, session, 200, new_key=notice, notice="Key created.")
                return render(a, request, session, 200, notice=notice)

            response = await run(request, work)
            if response.background is None:
                response.background = tasks
            return response

        router.add_api_route(path, handle, methods=["POST"], response_class=HTMLResponse)

    def logout(a: Accounts, s: Session, form: dict[str, str], t: BackgroundTasks) -> None:
        a.sessions.end(s)

    def new_key(a: Accounts, s: Session, form: dict[str, str], t: BackgroundTasks) -> str:
        return str(a.keys.create_key(s.wallet)["key"])

    def desk_action(act: PageAction) -> Callable[..., str | None]:
        def do(a: Accounts, s: Session, form: dict[str, str], t: BackgroundTasks) -> str | None:
            return act(s.wallet, form, t)

        return do

    action("/account/logout", logout)
    for desk in accounts.desks:
        for path, act in desk.actions().items():
            action(path, desk_action(act))
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
                a.keys.revoke_key(session.wallet, key_id[:64])
            except ServiceError as exc:
                return render(a, request, session, exc.status, problem=exc.message)
            return render(a, request, session, 200, notice="The key is revoked.")

        return await run(request, work)

    app.include_router(router)
