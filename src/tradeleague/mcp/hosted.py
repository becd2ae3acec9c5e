"""The MCP server hosted on ``tradeleague serve`` at ``/mcp``, over streamable HTTP.

Every request must carry an account's API key as ``Authorization: Bearer``
(``X-API-Key`` is accepted too); one without a valid key is refused with 401
before the MCP layer sees it. The 401's body is a JSON-RPC error
(code `AUTH_ERROR`) whose message is the REST API's sentence (where the key
was seen, why it failed, the forms accepted) and whose data is the REST error
object, so an MCP client shows the reason instead of a bare status. Each
tool call then acts for the key of the request it arrived in, checked again,
so a key revoked on any server stops working here within the key cache's
second. Sessions are stateless (each
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

from tradeleague.accounts import Account, Credential, credential_from_headers
from tradeleague.errors import ServiceError
from tradeleague.mcp.server import BuildServer, auth_error

__all__ = ["MCP_PATH", "HostedMcp"]

MCP_PATH: Final = "/mcp"

_KEY: contextvars.ContextVar[Credential | None] = contextvars.ContextVar(
    "tradeleague_mcp_key", default=None
)
_PEEK: Final = 65_536
"""The most of a refused request's body read to find its JSON-RPC id."""


def _request_key(scope: Scope) -> Credential:
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:  # the first of a repeated header counts
        headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return credential_from_headers(headers)


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

    def __init__(self, authenticate: Callable[[Credential], Account], build: BuildServer) -> None:
        self._authenticate = authenticate

        def account() -> Account:
            return authenticate(_KEY.get() or Credential(None))

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
            await _refuse(send, exc, await _request_id(receive))
            return
        token = _KEY.set(key)
        try:
            await self._app(scope, receive, send)
        finally:
            _KEY.reset(token)


async def _request_id(receive: Receive) -> object:
    """Return the JSON-RPC id of the request's body (``None`` if it has none or is not JSON)."""
    body = b""
    while len(body) <= _PEEK:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return None
    found = parsed.get("id") if isinstance(parsed, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


async def _refuse(send: Send, exc: ServiceError, request_id: object) -> None:
    error = auth_error(exc).error.model_dump(mode="json", exclude_none=True)
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode("utf-8")
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
