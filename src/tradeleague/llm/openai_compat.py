"""One provider class for every OpenAI-compatible endpoint, over a lean pooled HTTP client.

Each request is a plain chat-completions request: the round's temperature and
output-token cap, the preset's reasoning switch as extra body fields, the
answer's JSON schema (when the agent asks for structured output) in the
endpoint's dialect (``dialects.output_fields``: ``response_format``,
``guided_json``, ``grammar``...) and optional tools; a tool step's
messages go out natively (an ``assistant`` message with ``tool_calls``, then
one ``tool`` message per call with its ``tool_call_id``). ``request_body``
returns the body exactly. The body is written as JSON directly and posted
through one keep-alive connection pool per provider and event loop
(``http_pool.HttpPool``, opened on the first call, closed with the gateway):
no SDK builds the request, no thread waits on it, and a round of a thousand
agents sends its requests in a few milliseconds of CPU. The client never
retries: the gateway owns retries and the deadline (its own timeout,
``timeout_s + CLIENT_TIMEOUT_SLACK_S``, only matters outside a gateway). The
body is read with ``json.loads``, so the text is exactly the string the
provider sent (C-4), after a bound on its nesting and length
(``untrusted.loads``; error bodies too): a body nested too deep is a
``provider_error``, never a crash. Token counts are cut to ``MAX_TOKENS_COUNTED``.

Every fault becomes an ``Outcome`` (DESIGN principle 7), from real HTTP
behaviour, recorded in the words the official OpenAI client's path recorded
them (``tests/llm/wire_records.json`` pins them):

========================================  ===================
what happened                             outcome
========================================  ===================
HTTP 401, 402, 403                        ``key_rejected``
HTTP 404; HTTP 400/422 naming the model   ``model_not_found``
HTTP 429                                  ``rate_limited``
HTTP 408; the client's own timeout        ``timeout``
HTTP 5xx, other 4xx, connection refused,  ``provider_error``
a connection reset, a body that is not
JSON, no choices
no key in the preset's variable           ``key_unreadable``
========================================  ===================

The error text of a ``provider_error`` says which: ``connection failed: ...``
when no connection could be made (nothing was sent); ``connection reset: ...``
when the connection dropped after the request was written (it may have been
received, so it is never sent again); ``bad response: ...`` when the server
broke HTTP; and, for an HTTP error to a request with structured output whose
message names it, ``output_unsupported: ... (HTTP 500: <the provider's message>)``
(``dialects.refused_output``).

Keys: the call's own key when the agent passes one; else the preset's variable
when it names one (a missing value is ``key_unreadable``); else no
``Authorization`` header at all.

Error texts and snippets of unreadable bodies are recorded with the key that
was sent, and anything else that looks like a secret, replaced by
``[redacted]`` (``redact.redact_secrets``, C-9): providers quote the key they
were sent.

An error response's ``Retry-After`` (``retry_after``) goes into the reply's
``retry_after_s`` and its error text; the gateway waits that long before a
retry, and retries only if the wait ends inside the deadline.
"""

from __future__ import annotations

import asyncio
import codecs
import email.utils
import json
import math
import os
import ssl
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from tradeleague.calls import Message, Outcome
from tradeleague.llm.dialects import OUTPUT_UNSUPPORTED, output_fields, refused_output
from tradeleague.llm.http_pool import (
    MAX_IDLE_S,
    ConnectionDropped,
    HttpFailure,
    HttpPool,
    HttpResponse,
)
from tradeleague.llm.presets import ProviderPreset
from tradeleague.llm.redact import redact_secrets, reply_without_key
from tradeleague.llm.types import (
    MAX_TOKENS_COUNTED,
    UNDER_GATEWAY_DEADLINE,
    ChatRequest,
    ModelReply,
)
from tradeleague.untrusted import loads as bounded_loads
from tradeleague.untrusted import nesting_within

__all__ = [
    "CLIENT_TIMEOUT_SLACK_S",
    "ERROR_TEXT_LIMIT",
    "OpenAICompatProvider",
    "outcome_for_status",
    "retry_after",
]

ERROR_TEXT_LIMIT = 2000
"""Error bodies are kept up to this many characters (model text is never cut)."""

_SCAN_LIMIT = 4 * ERROR_TEXT_LIMIT
"""How much of an error body is read before redaction, so no cut splits a secret."""

CLIENT_TIMEOUT_SLACK_S = 1.0
"""The client's own timeout exceeds the round's by this much: the gateway's deadline rules."""

_MODEL_MISSING_HINTS = ("not a valid model", "model_not_found", "does not exist", "unknown model")


def outcome_for_status(status: int, message: str = "") -> Outcome:
    """Return the outcome of an HTTP error status (see the module table)."""
    if status in (401, 402, 403):
        return Outcome.KEY_REJECTED
    if status == 404:
        return Outcome.MODEL_NOT_FOUND
    if status in (400, 422) and any(h in message.lower() for h in _MODEL_MISSING_HINTS):
        return Outcome.MODEL_NOT_FOUND
    if status == 429:
        return Outcome.RATE_LIMITED
    if status == 408:
        return Outcome.TIMEOUT
    return Outcome.PROVIDER_ERROR


class OpenAICompatProvider:
    """A ``Provider`` for one OpenAI-compatible endpoint.

    Parameters
    ----------
    preset
        Where the endpoint lives and what it needs.
    max_connections
        The HTTP connection pool size; keep it at least the gateway's
        concurrency limit for this provider, or calls queue inside the client.
    max_idle_s
        How long a pooled connection may wait idle and still be reused
        (``http_pool.MAX_IDLE_S`` by default).
    environ
        Where to read the key variable (the process environment by default).
    """

    def __init__(
        self,
        preset: ProviderPreset,
        *,
        max_connections: int = 256,
        environ: Mapping[str, str] | None = None,
        max_idle_s: float = MAX_IDLE_S,
    ) -> None:
        self.name = preset.name
        self.preset = preset
        self.max_connections = max_connections
        self._max_idle = max_idle_s
        self._environ = os.environ if environ is None else environ
        self._extra = (
            json.loads(json.dumps(preset.reasoning_on)),
            json.loads(json.dumps(preset.reasoning_off)),
        )
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
            "User-Agent": _user_agent(),
            **dict(preset.headers),
        }
        self._pool: HttpPool | None = None
        self._messages_json: tuple[tuple[Message, ...], str] | None = None
        self._output: tuple[object, str, dict[str, Any]] | None = None

    @property
    def pool(self) -> HttpPool | None:
        """The connection pool of the running event loop's calls, once the first call made it."""
        return self._pool

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """Return the exact JSON body of the chat-completions request for ``request``."""
        return self._body(request, [m.to_wire() for m in request.messages])

    def wire_body(self, request: ChatRequest) -> bytes:
        """Return ``request_body`` as the bytes sent: compact JSON.

        A round asks every agent the same messages (C-2): their JSON is encoded
        once and reused while the messages are equal (messages of role and
        text only), the rest of the body encoded around a marker that stands in
        their place.
        """
        messages = request.messages
        body = self._body(request, _MESSAGES_MARK)
        text = json.dumps(body, separators=(",", ":"))
        if (
            body.get("messages") is not _MESSAGES_MARK
            or text.count(_MESSAGES_MARK_JSON) != 1
            # equal tool calls may still differ in key order or 1 and 1.0: encoded every time
            or any(m.tool_calls for m in messages)
        ):
            return json.dumps(self.request_body(request), separators=(",", ":")).encode()
        cached = self._messages_json
        if cached is None or cached[0] != messages:
            wire = json.dumps([m.to_wire() for m in messages], separators=(",", ":"))
            cached = self._messages_json = (messages, wire)
        return text.replace(_MESSAGES_MARK_JSON, cached[1]).encode()

    def _body(self, request: ChatRequest, messages: object) -> dict[str, Any]:
        params = request.params
        extra = self._extra[0] if params.reasoning else self._extra[1]
        body: dict[str, Any] = {
            "model": request.model,
            "messages": messages,
            "temperature": params.temperature,
            self.preset.max_tokens_field: params.max_tokens,
        }
        if request.json_schema is not None:
            body.update(self._output_fields(request))
        if request.tools:
            body["tools"] = [dict(t) for t in request.tools]
        if extra:
            body.update(json.loads(json.dumps(extra)))
        return body

    def _output_fields(self, request: ChatRequest) -> dict[str, Any]:
        """Return the structured-output fields of ``request`` in this endpoint's dialect.

        A round hands every agent the same schema object: the fields are built
        once for it (a grammar of a large universe takes milliseconds) and
        copied for each request.

        Raises
        ------
        ValueError
            If the dialect does not speak the output, or the schema cannot be a grammar.
        """
        schema = request.json_schema or {}
        cached = self._output
        if cached is None or cached[0] is not schema or cached[1] != request.output:
            fields = output_fields(self.preset.dialect, request.output, schema)
            cached = self._output = (schema, request.output, fields)
        fields = cached[2]
        return json.loads(json.dumps(fields)) if fields else {}

    def _key(self, api_key: str | None) -> str | ModelReply | None:
        if api_key is not None:
            return api_key
        if self.preset.key_env is None:
            return None
        key = self._environ.get(self.preset.key_env, "").strip()
        if not key:
            return ModelReply(
                outcome=Outcome.KEY_UNREADABLE,
                error=f"environment variable {self.preset.key_env} is not set",
            )
        return key

    def _pool_of(self, loop: asyncio.AbstractEventLoop) -> HttpPool:
        """Return this loop's pool, made on first use (a pool of a finished loop is dropped)."""
        pool = self._pool
        if pool is None or pool.loop is not loop:
            pool = self._pool = HttpPool(
                self.preset.base_url,
                max_connections=self.max_connections,
                headers=self._headers,
                ssl_context=_ssl_context(),
                max_idle_s=self._max_idle,
            )
        return pool

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        """Send ``request`` and return the reply; every fault is an ``Outcome``."""
        key = self._key(api_key)
        if isinstance(key, ModelReply):
            return key
        loop = asyncio.get_running_loop()
        started = loop.time()
        pool = self._pool_of(loop)
        try:
            payload = self.wire_body(request)
        except ValueError as exc:  # an output the dialect cannot send: nothing is sent
            error = f"{OUTPUT_UNSUPPORTED}: {exc}"
            return _fault(Outcome.PROVIDER_ERROR, None, error, started, key)
        auth = {} if key is None else {"Authorization": f"Bearer {key}"}
        post = pool.post("/chat/completions", payload, auth)
        try:
            if UNDER_GATEWAY_DEADLINE.get():  # the gateway's deadline always ends it first
                response = await post
            else:
                async with asyncio.timeout(request.params.timeout_s + CLIENT_TIMEOUT_SLACK_S):
                    response = await post
        except TimeoutError:
            return _fault(Outcome.TIMEOUT, None, "the client timed out", started, key)
        except (OSError, HttpFailure) as exc:
            reply = _fault(Outcome.PROVIDER_ERROR, None, _connection_error(exc), started, key)
            return replace(reply, maybe_received=isinstance(exc, ConnectionDropped))
        except ValueError:  # a key that cannot be sent as a header: never quoted
            error = "connection failed: the key holds a line break or NUL"
            return _fault(Outcome.PROVIDER_ERROR, None, error, started, key)
        if not 200 <= response.status < 300:
            return _status_fault(response, started, key, request)
        reply = _parse_completion(response.body, response.status, loop.time() - started, key)
        # a model led to echo the key it was called with publishes none of it (C-9)
        return reply_without_key(reply, key)

    async def aclose(self) -> None:
        """Close the HTTP connections (of the running loop's pool)."""
        pool, self._pool = self._pool, None
        if pool is not None and pool.loop is asyncio.get_running_loop():
            pool.close()


_MESSAGES_MARK = "\x00tradeleague-messages\x00"
_MESSAGES_MARK_JSON = json.dumps(_MESSAGES_MARK)

_SSL: list[ssl.SSLContext] = []


def _ssl_context() -> ssl.SSLContext:
    """Return the TLS context for https providers: made once (loading the CA bundle is slow)."""
    if not _SSL:
        try:
            import certifi  # the CA bundle the HTTP clients ship with, where installed

            _SSL.append(ssl.create_default_context(cafile=certifi.where()))
        except ImportError:
            _SSL.append(ssl.create_default_context())
    return _SSL[0]


def _user_agent() -> str:
    try:
        return f"tradeleague/{metadata.version('tradeleague')}"
    except metadata.PackageNotFoundError:
        return "tradeleague"


def _connection_error(exc: BaseException) -> str:
    """Return what went wrong with the connection, in words a user can act on.

    ``connection failed: <what happened> (<its type>)`` when no connection could
    be made (refused, no such host, TLS: nothing was sent); ``connection reset:
    ...`` when the server reset it, while connecting (nothing was sent) or after
    the request was written (it may have been received); ``bad response: ...``
    when the server broke HTTP. No class of this package is named.
    """
    if isinstance(exc, ConnectionDropped):
        return (
            f"connection reset: {exc}; the request may have reached the server, "
            "so it was not sent again"
        )
    if isinstance(exc, HttpFailure):
        return f"bad response: {exc}"
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, ConnectionResetError | ConnectionAbortedError):  # while connecting
        return f"connection reset: {text} ({type(exc).__name__}), before the request was sent"
    return f"connection failed: {text} ({type(exc).__name__})"


def _status_fault(
    response: HttpResponse, started: float, key: str | None, request: ChatRequest
) -> ModelReply:
    """Return the reply to an HTTP error status, its message read as OpenAI's client reads it.

    A request with structured output that the provider refused because of it
    names the fault ``output_unsupported`` beside the provider's own message.
    """
    text = _text(response)
    message = _error_message(_error_body(text), text)
    outcome = outcome_for_status(response.status, message)
    wait = retry_after(response.headers)
    error = f"HTTP {response.status}: {message}"
    if (
        request.json_schema is not None
        and outcome is Outcome.PROVIDER_ERROR
        and refused_output(response.status, message)
    ):
        refused = f"{OUTPUT_UNSUPPORTED}: the provider refused output={request.output}"
        error = f"{refused} ({error})"
    if wait is not None:
        error = f"{error} (retry after {wait:g} s)"
    reply = _fault(outcome, response.status, error, started, key)
    return replace(reply, retry_after_s=wait)


def _text(response: HttpResponse) -> str:
    """Return the body as text: the ``charset`` of its content type, else UTF-8, never failing."""
    encoding = "utf-8"
    content_type = response.headers.get("content-type", "")
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            candidate = value.strip().strip("\"'")
            try:
                codecs.lookup(candidate)
            except LookupError:
                continue
            encoding = candidate
    return response.body.decode(encoding, "replace")


def _error_body(text: str) -> object:
    """Return an error body's ``error`` object (or the whole body, or its text).

    A body nested too deep is kept as (the start of) its text, never decoded.
    """
    if not nesting_within(text):
        return text[:_SCAN_LIMIT]
    stripped = text.strip()
    try:
        body: object = json.loads(stripped)
    except Exception:  # anything at all: the text stands
        body = stripped
    return body.get("error", body) if isinstance(body, Mapping) else body


def _error_message(body: object, text: str) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            code = inner.get("code")
            message = str(inner["message"])
            return f"{message} ({code})" if isinstance(code, str) else message
    return text[:_SCAN_LIMIT]


def retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Return the wait a response asks for before a retry, in seconds, or ``None``.

    Reads ``retry-after-ms`` (OpenAI's, in milliseconds) first, then
    ``retry-after`` in seconds or as an HTTP date (counted from ``now``, the
    wall clock by default). A value that cannot be read, or is negative, is
    ignored. Header names are matched in lower case.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            ms = float(raw_ms)
        except ValueError:
            ms = -1.0
        if math.isfinite(ms) and ms >= 0:
            return ms / 1000
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            return None
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
        return max(0.0, seconds)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _parse_completion(content: bytes, status: int, latency: float, key: str | None) -> ModelReply:
    """Read a chat-completions body; the text is kept exactly as received (C-4).

    A body that cannot be read is a ``provider_error`` whose error text quotes
    the start of the body, with the key sent and other secrets redacted (C-9).
    """
    try:
        body = bounded_loads(content)
        choice = body["choices"][0]
        message = choice["message"]
        text = message.get("content")
        if text is not None and not isinstance(text, str):
            raise TypeError("content is not a string")
        usage = body.get("usage") or {}
        tool_calls = tuple(dict(tc) for tc in message.get("tool_calls") or ())
        finish_reason = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        snippet = content[:_SCAN_LIMIT].decode("utf-8", "replace")
        error = f"malformed response body ({type(exc).__name__}: {exc}): {snippet}"
        return ModelReply(
            outcome=Outcome.PROVIDER_ERROR,
            latency_s=latency,
            http_status=status,
            error=redact_secrets(error, key)[:ERROR_TEXT_LIMIT],
        )
    return ModelReply(
        outcome=Outcome.ANSWERED,
        text=text,
        latency_s=latency,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
        http_status=status,
        tool_calls=tool_calls,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
    )


def _count(value: object) -> int | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return max(0, min(value, MAX_TOKENS_COUNTED))


def _fault(
    outcome: Outcome, status: int | None, error: str, started: float, key: str | None
) -> ModelReply:
    """Return a fault's reply; its error text is redacted (C-9), then cut to the limit."""
    latency = asyncio.get_running_loop().time() - started
    error = redact_secrets(error, key)[:ERROR_TEXT_LIMIT]
    return ModelReply(outcome=outcome, latency_s=latency, http_status=status, error=error)
