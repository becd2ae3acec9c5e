"""A lean HTTP/1.1 client for model calls: one keep-alive connection pool per endpoint.

A round of a thousand agents sends a thousand requests at the same instant;
the time a general-purpose client spends building each one (about a
millisecond in the official OpenAI client) delays the last request sent by a
second. This client does only what a chat-completions call needs: the request
is written as bytes in one ``write``, the response is read by ``httptools``
(the C parser uvicorn uses) straight off an ``asyncio.Protocol``, and the
connection goes back to the pool for the next call (keep-alive). No thread per
call; the caller enforces deadlines with ``asyncio.timeout`` (cancelling a call
closes its connection, since its response is still on the way).

The pool opens at most ``max_connections`` connections; a call beyond that
waits for one to come back. Idle connections are reused newest first.

A request is written once and never again: a POST that may have reached the
server is not resent, since the server may have acted on it (a paid model
call, twice). So a stale connection is found before anything is written on
it: an idle connection is reused only if the server has not closed it (the
event loop saw no end, and the socket holds no unread end or byte, asked of
the kernel with a zero-timeout ``poll``) and it has been idle less than
``max_idle_s`` (4 s: under the 5 s keep-alive of uvicorn, Node and the
``cpp-httplib`` server of llama.cpp, so the server's timer does not close it
while the request is on its way); any other is closed and a new one opened.
A connection that drops after the request was written is a
``ConnectionDropped``, raised to the caller: the call fails, once.

Bounds: a response body over ``max_body_bytes`` (after decompression), or
headers over ``MAX_HEADER_BYTES``, is an ``HttpFailure``; so is a response that
breaks HTTP. A connection that cannot be opened (refused, no such host, TLS)
raises the ``OSError`` itself: then nothing was sent.

HTTP/2 is not spoken. Measured against the fake provider with a thousand
concurrent calls, httpx (the client that offers HTTP/2, through h2) cost about
11.5 ms of CPU per call over HTTP/1.1 (its pool scans every connection),
aiohttp 0.36 ms, this client about 0.13 ms; the fake provider (uvicorn) serves
HTTP/1.1 only, so HTTP/2 itself could not be measured here.
"""

from __future__ import annotations

import asyncio
import logging
import select
import ssl
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlsplit

import httptools

from tradeleague.errors import ConfigError

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_IDLE_S",
    "ConnectionDropped",
    "HttpFailure",
    "HttpPool",
    "HttpResponse",
]

MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest response body read, in bytes (a chat completion is a few kilobytes)."""

MAX_HEADER_BYTES = 64 * 1024
"""The most bytes of response headers read (names and values together)."""

MAX_IDLE_S = 4.0
"""An idle connection older than this is closed, not reused (see the module's text)."""

log = logging.getLogger("tradeleague.llm.http")


class HttpFailure(Exception):
    """The server broke HTTP: a bad response, a body too large, or the connection dropped."""


class ConnectionDropped(HttpFailure):
    """The connection closed or was reset after the request was written, before the whole answer.

    The request may have reached the server: it is never sent again.
    """


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A whole response: status, headers (names lower-case) and the decoded body."""

    status: int
    headers: Mapping[str, str]
    """Repeated headers are joined with ``", "``, as HTTP allows."""
    body: bytes


class _Connection(asyncio.Protocol):
    """One keep-alive connection; it carries one request at a time."""

    def __init__(self, max_body: int) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._max_body = max_body
        self._parser = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[HttpResponse] | None = None
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []
        self._size = 0
        self._got_bytes = False
        self._headers_done = False
        self._header_bytes = 0
        self._keep_alive = False
        self.idle_since = 0.0
        """When the connection last went back to the pool (the event loop's clock)."""

    # -- asyncio.Protocol ------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's does not subclass asyncio.Transport)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self._waiter is None or self._waiter.done():  # bytes nobody asked for: not reusable
            self.close()
            return
        self._got_bytes = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(HttpFailure(f"the response is not HTTP ({exc})"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        why = f" ({exc})" if exc is not None else ""
        if self._headers_done and not self._has_length():
            self._finish(keep_alive=False)  # a body delimited by the connection's end
        elif not self._got_bytes:
            self._fail(ConnectionDropped(f"the server closed the connection before answering{why}"))
        else:
            self._fail(ConnectionDropped(f"the server closed the connection mid-response{why}"))

    # -- httptools callbacks ---------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value)
        if self._header_bytes > MAX_HEADER_BYTES:
            self._fail(HttpFailure(f"the response headers exceed {MAX_HEADER_BYTES} bytes"))
            return
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        self._headers_done = True

    def on_body(self, body: bytes) -> None:
        self._size += len(body)
        if self._size > self._max_body:
            self._fail(HttpFailure(f"the response body is larger than {self._max_body} bytes"))
            return
        self._body.append(body)

    def on_message_complete(self) -> None:
        self._finish(keep_alive=self._parser.should_keep_alive())

    # -- requests --------------------------------------------------------------

    def reusable(self, now: float, max_idle_s: float) -> bool:
        """Return whether this idle connection may carry a request (see the module's text).

        It must be open as far as the event loop and the kernel know: no end
        and no byte waiting unread (an idle connection is owed nothing), and
        idle less than ``max_idle_s``.
        """
        transport = self.transport
        if self.closed or transport is None or transport.is_closing():
            return False
        if now - self.idle_since >= max_idle_s:
            return False
        sock = transport.get_extra_info("socket")
        if sock is None:
            return True
        try:
            poller = select.poll()
            poller.register(sock.fileno(), select.POLLIN | select.POLLPRI)
            return not poller.poll(0)
        except (OSError, ValueError):
            return False

    async def send(self, request: bytes) -> tuple[HttpResponse, bool]:
        """Write ``request`` once; return the response and whether the connection can be reused.

        Raises
        ------
        ConnectionDropped
            If the connection ends before the whole response arrived.
        HttpFailure
            If the response breaks HTTP or its bounds.
        """
        if self.transport is None or self.transport.is_closing():
            raise HttpFailure("the connection closed before the request was written")
        self._waiter = asyncio.get_running_loop().create_future()
        self._keep_alive = False
        self.transport.write(request)
        try:
            response = await self._waiter
        finally:
            self._waiter = None
        return response, self._keep_alive and not self.closed

    def reset(self) -> None:
        """Make ready for the next request on this connection."""
        self._parser = httptools.HttpResponseParser(self)
        self._headers = []
        self._body = []
        self._size = 0
        self._got_bytes = False
        self._headers_done = False
        self._header_bytes = 0

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _has_length(self) -> bool:
        for name, value in self._headers:
            lower = name.lower()
            if lower == b"content-length":
                return True
            if lower == b"transfer-encoding" and b"chunked" in value.lower():
                return True
        return False

    def _finish(self, *, keep_alive: bool) -> None:
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        headers: dict[str, str] = {}
        for raw_name, raw_value in self._headers:
            name = raw_name.decode("latin-1").lower()
            value = raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        try:
            body = _decoded(b"".join(self._body), headers.get("content-encoding"), self._max_body)
        except HttpFailure as exc:
            self._fail(exc)
            return
        self._keep_alive = keep_alive
        waiter.set_result(HttpResponse(self._parser.get_status_code(), headers, body))

    def _fail(self, exc: HttpFailure) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)
        self.close()


def _decoded(body: bytes, encoding: str | None, limit: int) -> bytes:
    """Undo a ``gzip`` or ``deflate`` content encoding, with the same bound on the result."""
    if not encoding or encoding.strip().lower() == "identity":
        return body
    kind = encoding.strip().lower()
    if kind not in ("gzip", "x-gzip", "deflate"):
        raise HttpFailure(f"the response has an unknown content encoding {encoding!r}")
    wbits = 16 + zlib.MAX_WBITS if kind != "deflate" else zlib.MAX_WBITS
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise HttpFailure(f"the response body does not decompress ({exc})") from None
    if len(out) > limit:
        raise HttpFailure(f"the response body is larger than {limit} bytes")
    return out


def _header_line(name: str, value: str) -> bytes:
    """Return one header line; refuse characters that could end the line early."""
    if any(c in name for c in ":\r\n\0") or any(c in value for c in "\r\n\0"):
        raise ValueError(f"the header {name!r} holds a line break or NUL")
    return f"{name}: {value}\r\n".encode("latin-1")


class HttpPool:
    """Keep-alive HTTP/1.1 connections to one origin, for one event loop.

    Parameters
    ----------
    base_url
        ``http://`` or ``https://`` URL; request paths are appended to its path.
    max_connections
        The most connections open at once; a request beyond waits for one.
    headers
        Headers sent with every request (besides ``Host`` and ``Content-Length``).
    ssl_context
        For ``https``: the TLS context (the system's default trust store if ``None``).
    max_body_bytes
        The largest response body accepted.
    max_idle_s
        How long a connection may wait idle and still be reused.

    Raises
    ------
    ConfigError
        If the URL is not ``http``/``https`` with a host, or a header cannot be sent.
    """

    def __init__(
        self,
        base_url: str,
        *,
        max_connections: int,
        headers: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_idle_s: float = MAX_IDLE_S,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"the base URL {base_url!r} is not an http(s) URL with a host")
        if max_connections < 1:
            raise ConfigError("a connection pool needs at least one connection")
        self.loop = asyncio.get_running_loop()
        self._host = parts.hostname
        self._tls = parts.scheme == "https"
        self._port = parts.port or (443 if self._tls else 80)
        default_port = self._port == (443 if self._tls else 80)
        host = f"[{self._host}]" if ":" in self._host else self._host
        netloc = host if default_port else f"{host}:{self._port}"
        self._prefix = parts.path.rstrip("/")
        self._ssl = (ssl_context or ssl.create_default_context()) if self._tls else None
        self._max_body = max_body_bytes
        self._max_idle = max_idle_s
        try:
            fixed = b"".join(
                _header_line(n, v) for n, v in {"Host": netloc, **dict(headers or {})}.items()
            )
        except (ValueError, UnicodeEncodeError) as exc:
            raise ConfigError(f"a header cannot be sent: {exc}") from None
        self._fixed = fixed
        self._slots = asyncio.Semaphore(max_connections)
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self.opened = 0
        """How many connections this pool has opened in all (for tests and benchmarks)."""

    async def post(self, path: str, body: bytes, headers: Mapping[str, str]) -> HttpResponse:
        """POST ``body`` to ``path`` (under the base URL's path); return the whole response.

        The request is written once, on a connection checked just before
        (``_Connection.reusable``) or new, and never sent again.

        Raises
        ------
        OSError
            If a connection cannot be opened (its own error: refused, DNS, TLS);
            nothing was sent.
        ConnectionDropped
            If the connection ends after the request was written, before the
            whole response (the server may have received it).
        HttpFailure
            If the server breaks HTTP.
        ValueError
            If a header value holds a line break (nothing was sent).
        """
        head = b"".join(_header_line(n, v) for n, v in headers.items())
        request = b"".join(
            (
                f"POST {self._prefix}{path} HTTP/1.1\r\n".encode("latin-1"),
                self._fixed,
                head,
                f"Content-Length: {len(body)}\r\n\r\n".encode("latin-1"),
                body,
            )
        )
        if log.isEnabledFor(logging.DEBUG):
            log.debug("POST %s%s (%d bytes)", self._prefix, path, len(body))
        async with self._slots:
            conn = self._take_idle()
            if conn is None:
                conn = await self._connect()
            try:  # nothing awaits between the check above and the write
                response, keep = await conn.send(request)
            except BaseException:  # a cancelled call's response is still on the way
                self._drop(conn)
                raise
            if keep:
                conn.reset()
                conn.idle_since = self.loop.time()
                self._idle.append(conn)
            else:
                self._drop(conn)
            if log.isEnabledFor(logging.DEBUG):
                log.debug("HTTP %d (%d bytes)", response.status, len(response.body))
            return response

    def _take_idle(self) -> _Connection | None:
        """Return the newest idle connection that may carry a request; close the others met."""
        now = self.loop.time()
        while self._idle:
            conn = self._idle.pop()
            if conn.reusable(now, self._max_idle):
                return conn
            self._drop(conn)
        return None

    async def _connect(self) -> _Connection:
        max_body = self._max_body
        _, conn = await self.loop.create_connection(
            lambda: _Connection(max_body),
            self._host,
            self._port,
            ssl=self._ssl,
            server_hostname=self._host if self._tls else None,
        )
        self._open.add(conn)
        self.opened += 1
        return conn

    def _drop(self, conn: _Connection) -> None:
        conn.close()
        self._open.discard(conn)

    def close(self) -> None:
        """Close every connection; the pool stays usable (it opens new ones)."""
        for conn in list(self._open):
            conn.close()
        self._open.clear()
        self._idle.clear()
