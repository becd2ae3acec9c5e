"""Writes without an account: a limit per client address, and names that belong to someone.

Every route that writes without an account (a visitor's call, a sign-in
nonce or login, a page's form) first spends one of its client address's
writes (`WriteLimits.take`): at most ``per_window`` in each ``window_s``
seconds, counted in the store's ``write_limits`` table, so every ``serve``
process on one store counts together. Past the limit the route answers
``429 rate_limited`` with ``Retry-After`` (the seconds until the window
ends). The limits come from the league file's ``[limits]`` table
(`WriteLimit.from_table`); ``serve`` without one uses the defaults.

A name that a visitor writes under (their visitor's calls) belongs to whoever
first used it (`claim_name`): the holder is the hash of their signed-in
wallet, or else of their visitor cookie (`visitor_holder` sets one on the
first write), kept in ``visitor_names``; a
later write under that name from another holder is refused by the caller.

The client address is the connection's peer: a header such as
``X-Forwarded-For`` is the client's own text, so it is never trusted.
"""

from __future__ import annotations

import secrets
from typing import Final

from fastapi import Request, Response

from tradeleague.accounts.anonymous import WriteLimits, hashed
from tradeleague.api.account.sessions import SESSION_COOKIE
from tradeleague.errors import ServiceError

__all__ = ["VISITOR_COOKIE", "anonymous_write", "retry_later", "visitor_holder", "with_cookies"]

VISITOR_COOKIE: Final = "tl_visitor"
"""The cookie that says which visitor a browser (or script) is: a random id, never shown."""

_COOKIE_DAYS: Final = 400


def anonymous_write(request: Request) -> None:
    """Spend one of the request's client address's writes without an account.

    A route's dependency (or a call at its start); the app's `WriteLimits`
    is ``request.app.state.write_limits`` (none set: no limit).

    Raises
    ------
    ServiceError
        429 ``rate_limited``, with ``retry_after_s`` (sent as ``Retry-After``).
    """
    limits: WriteLimits | None = getattr(request.app.state, "write_limits", None)
    if limits is None:
        return
    client = request.client.host if request.client is not None else "unknown"
    wait = limits.take(client)
    if wait is not None:
        raise ServiceError(
            429,
            "rate_limited",
            f"Too many writes from your address; try again in {wait} seconds.",
            {"retry_after_s": wait},
        )


def visitor_holder(request: Request, response: Response) -> str:
    """Return the hash that names this visitor, setting their visitor cookie if they have none.

    A signed-in visitor is their wallet (the same on every browser they sign in
    on); anyone else is their visitor cookie.
    """
    accounts = getattr(request.app.state, "accounts", None)
    if accounts is not None:
        session = accounts.sessions.read(request.cookies.get(SESSION_COOKIE))
        if session is not None:
            return hashed(f"wallet:{str(session.wallet).lower()}")
    sent = request.cookies.get(VISITOR_COOKIE, "")
    if not (16 <= len(sent) <= 64 and sent.isalnum()):
        sent = secrets.token_hex(16)
        response.set_cookie(
            VISITOR_COOKIE,
            sent,
            max_age=_COOKIE_DAYS * 86_400,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
    return hashed(sent)


def with_cookies(target: Response, source: Response) -> Response:
    """Return ``target`` with the cookies set on ``source`` (a route's injected response)."""
    for name, value in source.raw_headers:
        if name == b"set-cookie":
            target.raw_headers.append((name, value))
    return target


def retry_later(page: Response, exc: ServiceError) -> Response:
    """Return ``page`` (a form's page showing ``exc``) with ``exc``'s ``Retry-After``, if any."""
    wait = exc.extra.get("retry_after_s")
    if isinstance(wait, int):
        page.headers["Retry-After"] = str(wait)
    return page
