"""Request bodies read with bounds, before any route or parser sees them.

`BoundedBodies` wraps the whole ASGI app. For every HTTP request it:

- refuses a declared ``Content-Length`` over the limit with 413, before
  reading a byte of the body, and stops reading (413) as soon as a body sent
  without one passes the limit;
- decompresses a ``gzip`` or ``deflate`` ``Content-Encoding`` with the output
  bounded by the same limit (a small bomb is 413 after at most that many
  bytes, never gigabytes); a corrupt or truncated stream is 400
  ``invalid_body``; any other encoding is 415;
- refuses a body nested deeper than ``untrusted.MAX_DEPTH`` (400
  ``invalid_body``), scanned without recursion, so the JSON decoder behind
  FastAPI never meets a document that could overflow the stack.

The app then sees the plain body, without ``Content-Encoding``. Every refusal is
the usual JSON error body. Large bodies are scanned and decompressed in a
worker thread so the event loop keeps answering other requests.
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from starlette.concurrency import run_in_threadpool

from tradeleague.api.errors import error_response
from tradeleague.untrusted import MAX_DEPTH, nesting_within

__all__ = ["MAX_BODY_BYTES", "BoundedBodies"]

MAX_BODY_BYTES: Final = 1 << 20
"""The largest request body accepted, after decompression (1 MiB)."""

_INLINE_BYTES: Final = 1 << 16
"""Bodies up to this size are checked on the event loop; larger ones in a thread."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _too_large(limit: int) -> _Refused:
    return _Refused(413, "payload_too_large", f"The request body is larger than {limit} bytes.")


def _decompress(body: bytes, encoding: str, limit: int) -> bytes:
    wbits = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS}.get(
        encoding, zlib.MAX_WBITS
    )
    stream = zlib.decompressobj(wbits)
    try:
        out = stream.decompress(body, limit + 1)
    except zlib.error:
        raise _Refused(
            400, "invalid_body", f"The request body is not valid {encoding} data."
        ) from None
    if len(out) > limit or stream.unconsumed_tail:
        raise _too_large(limit)
    if not stream.eof or stream.unused_data:
        raise _Refused(400, "invalid_body", f"The request body is not one whole {encoding} stream.")
    return out


def _check(body: bytes, encoding: str, limit: int, max_depth: int) -> bytes:
    if encoding not in ("", "identity"):
        body = _decompress(body, encoding, limit)
    text = body.decode("utf-8", "replace")
    if not nesting_within(text, max_depth):
        raise _Refused(
            400, "invalid_body", f"The request body nests deeper than {max_depth} levels."
        )
    return body


class BoundedBodies:
    """ASGI middleware bounding every request body (see the module notes).

    Parameters
    ----------
    app
        The app to protect.
    max_bytes
        The largest body accepted, compressed or not.
    max_depth
        The deepest nesting of arrays and objects accepted.
    """

    def __init__(
        self, app: ASGIApp, *, max_bytes: int = MAX_BODY_BYTES, max_depth: int = MAX_DEPTH
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body within the bounds, then hand the plain body to the app."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            body = await self._read(headers, receive)
            encoding = headers.get("content-encoding", "").strip().lower()
            if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
                raise _Refused(
                    415,
                    "unsupported_media_type",
                    "The request body's Content-Encoding is not gzip or deflate.",
                )
            if len(body) > _INLINE_BYTES or encoding not in ("", "identity"):
                body = await run_in_threadpool(
                    _check, body, encoding, self.max_bytes, self.max_depth
                )
            elif body:
                body = _check(body, encoding, self.max_bytes, self.max_depth)
        except _Refused as refused:
            response = error_response(refused.status, refused.code, refused.message)
            await response(scope, receive, send)
            return
        plain = [
            (k, v)
            for k, v in scope["headers"]
            if k.lower() not in (b"content-encoding", b"content-length")
        ]
        plain.append((b"content-length", str(len(body)).encode("ascii")))
        inner = dict(scope)
        inner["headers"] = plain
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(inner, replay, send)

    async def _read(self, headers: dict[str, str], receive: Receive) -> bytes:
        declared = headers.get("content-length")
        if declared is not None:
            digits = declared.strip()
            if not digits.isascii() or not digits.isdigit():
                raise _Refused(400, "invalid_body", "The Content-Length header is not a number.")
            if len(digits) > len(str(self.max_bytes)) or int(digits) > self.max_bytes:
                raise _too_large(self.max_bytes)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise _too_large(self.max_bytes)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)
