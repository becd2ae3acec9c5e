"""The MCP server hosted on ``tradeleague serve`` at ``/mcp``, over streamable HTTP.

Every request must carry an account's API key as ``Authorization: Bearer``
(``X-API-Key`` is accepted too); one without a valid key is refused with 401
before the MCP layer sees it. Each tool call then acts for the key of the
request it arrived in, checked again, so a key revoked on any server stops
working here within the key cache's second. Sessions are stateless (each
request stands alone), so any server behind a load balancer can answer.

The tools are a format's: `HostedMcp` is handed the function that checks a
key and the one that builds the server (the scenario benchmark's:
`tradeleague.league.scenario.mcp_tools.ScenarioMcp`).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import AsyncIterator, Callable
from typing import Final

from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from tradeleague.accounts import Account
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.errors import ServiceError
from tradeleague.mcp.server import BuildServer

__all__ = ["MCP_PATH", "HostedMcp"]

MCP_PATH: Final = "/mcp"

_KEY: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "tradeleague_mcp_key", default=None
)


def _request_key(scope: Scope) -> str | None:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return headers.get("x-api-key") or None


class HostedMcp:
    """The ASGI app at ``/mcp``: Bearer authentication in front of the MCP server.

    Parameters
    ----------
    authenticate
        Returns the account of an API key (raises `ServiceError` 401 for none).
    build
        Builds the MCP server whose tools act for the account it is handed
        (each call: the request's key's).
    """

    def __init__(self, authenticate: Callable[[str | None], Account], build: BuildServer) -> None:
        self._authenticate = authenticate

        def account() -> Account:
            return authenticate(_KEY.get())

        self.server = build(account)
        self._app: ASGIApp = self._fresh()

    def _fresh(self) -> ASGIApp:
        return self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            # Bearer keys, not cookies, authenticate: DNS rebinding gains an attacker nothing.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the MCP session manager (enter it in the site's lifespan, once per start).

        A session manager runs once, so each start of the site makes a new one.
        """
        self._app = self._fresh()
        async with self.server.session_manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request, refusing it with 401 unless its key is valid."""
        if scope["type"] != "http":
            return
        key = _request_key(scope)
        try:
            await run_in_threadpool(self._authenticate, key)
        except ServiceError as exc:
            await _refuse(send, exc)
            return
        token = _KEY.set(key)
        try:
            await self._app(scope, receive, send)
        finally:
            _KEY.reset(token)


async def _refuse(send: Send, exc: ServiceError) -> None:
    body = json.dumps(
        {"error": {"code": exc.code, "message": exc.message}, "disclaimer": DISCLAIMER}
    ).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": exc.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
                (b"www-authenticate", b'Bearer realm="tradeleague"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
