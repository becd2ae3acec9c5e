"""One provider class for every OpenAI-compatible endpoint, through the official client.

Each request is a plain chat-completions request: the round's temperature and
output-token cap, the preset's reasoning switch as extra body fields, an
optional JSON schema as ``response_format`` and optional tools; a tool step's
messages go out natively (an ``assistant`` message with ``tool_calls``, then
one ``tool`` message per call with its ``tool_call_id``). ``request_body``
returns the body exactly. It goes out through the official client's
generic ``post`` (its documented way to send any body): the typed
``chat.completions.create`` walks every parameter through type introspection,
about a millisecond of CPU per call, which a round of a thousand agents cannot
afford. The client never retries (``max_retries=0``): the gateway owns retries
and the deadline. The body is read with ``json.loads``, so the text is exactly
the string the provider sent (C-4), after a bound on its nesting and length
(``untrusted.loads``; error bodies too): a body nested too deep is a
``provider_error``, never a crash. Token counts are cut to ``MAX_TOKENS_COUNTED``.

Every fault becomes an ``Outcome`` (DESIGN principle 7), from real HTTP
behaviour:

========================================  ===================
what happened                             outcome
========================================  ===================
HTTP 401, 402, 403                        ``key_rejected``
HTTP 404; HTTP 400/422 naming the model   ``model_not_found``
HTTP 429                                  ``rate_limited``
HTTP 408; the client's own timeout        ``timeout``
HTTP 5xx, other 4xx, connection refused,  ``provider_error``
a body that is not JSON, no choices
no key in the preset's variable           ``key_unreadable``
========================================  ===================

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
import email.utils
import importlib.util
import itertools
import json
import math
import os
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Literal

import httpx2
import openai
from openai import AsyncOpenAI

from tradeleague.calls import Outcome
from tradeleague.errors import ConfigError
from tradeleague.llm.presets import ProviderPreset
from tradeleague.llm.redact import redact_secrets, reply_without_key
from tradeleague.llm.types import MAX_TOKENS_COUNTED, ChatRequest, ModelReply
from tradeleague.untrusted import loads as bounded_loads
from tradeleague.untrusted import nesting_within

__all__ = [
    "CLIENT_TIMEOUT_SLACK_S",
    "ERROR_TEXT_LIMIT",
    "OpenAICompatProvider",
    "Transport",
    "outcome_for_status",
    "retry_after",
]

ERROR_TEXT_LIMIT = 2000
"""Error bodies are kept up to this many characters (model text is never cut)."""

_SCAN_LIMIT = 4 * ERROR_TEXT_LIMIT
"""How much of an error body is read before redaction, so no cut splits a secret."""

NO_KEY = "no-key"
"""The bearer sent to keyless servers (never fall back to ``OPENAI_API_KEY``)."""

CLIENT_TIMEOUT_SLACK_S = 1.0
"""The client's own timeout exceeds the round's by this much: the gateway's deadline rules."""

POOL_SHARD_SIZE = 32
"""Connections per httpx pool; more connections are spread over several pools."""

Transport = Literal["auto", "aiohttp", "httpx"]
"""The official client's HTTP transport: its aiohttp option or its default httpx2 one."""

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
    environ
        Where to read the key variable (the process environment by default).
    transport
        The official client's HTTP transport. ``auto`` (the default) takes its
        aiohttp option (``openai.DefaultAioHttpClient``, the ``openai[aiohttp]``
        extra) when aiohttp is installed, else its default httpx2 transport.
        The request and the reply are the same either way; aiohttp costs about
        a fifth of the CPU per call, which a round of a thousand agents needs.
    """

    def __init__(
        self,
        preset: ProviderPreset,
        *,
        max_connections: int = 256,
        environ: Mapping[str, str] | None = None,
        transport: Transport = "auto",
    ) -> None:
        self.name = preset.name
        self.preset = preset
        self._environ = os.environ if environ is None else environ
        self.transport: Transport = _pick_transport(transport)
        verify = httpx2.create_ssl_context()  # loading the CA bundle once, not per pool
        if self.transport == "aiohttp":
            # one pool: aiohttp finds a free connection without scanning the whole pool
            shards = 1
            limits = httpx2.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            )
        else:
            # httpcore matches each request against every pooled connection (quadratic
            # in the pool size), so a large pool is split into small ones, used in turn.
            shards = max(1, math.ceil(max_connections / POOL_SHARD_SIZE))
            per_shard = math.ceil(max_connections / shards)
            limits = httpx2.Limits(max_connections=per_shard, max_keepalive_connections=per_shard)
        http_client = (
            openai.DefaultAioHttpClient
            if self.transport == "aiohttp"
            else openai.DefaultAsyncHttpxClient
        )
        self._clients = [
            _BoundedClient(
                api_key=NO_KEY,
                base_url=preset.base_url,
                max_retries=0,
                default_headers=dict(preset.headers) or None,
                http_client=http_client(limits=limits, verify=verify),
            )
            for _ in range(shards)
        ]
        self._turn = itertools.cycle(range(shards))

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """Return the exact JSON body of the chat-completions request for ``request``."""
        params = request.params
        extra = self.preset.reasoning_on if params.reasoning else self.preset.reasoning_off
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [m.to_wire() for m in request.messages],
            "temperature": params.temperature,
            self.preset.max_tokens_field: params.max_tokens,
        }
        if request.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "answer",
                    "schema": dict(request.json_schema),
                    "strict": True,
                },
            }
        if request.tools:
            body["tools"] = [dict(t) for t in request.tools]
        body.update(json.loads(json.dumps(extra)))
        return body

    def _key(self, api_key: str | None) -> str | ModelReply:
        if api_key is not None:
            return api_key
        if self.preset.key_env is None:
            return NO_KEY
        key = self._environ.get(self.preset.key_env, "").strip()
        if not key:
            return ModelReply(
                outcome=Outcome.KEY_UNREADABLE,
                error=f"environment variable {self.preset.key_env} is not set",
            )
        return key

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        """Send ``request`` and return the reply; every fault is an ``Outcome``."""
        key = self._key(api_key)
        if isinstance(key, ModelReply):
            return key
        loop = asyncio.get_running_loop()
        started = loop.time()
        client = self._clients[next(self._turn)]
        try:
            response = await client.post(
                "/chat/completions",
                cast_to=httpx2.Response,
                body=self.request_body(request),
                options={
                    "headers": {"Authorization": f"Bearer {key}"},
                    "timeout": request.params.timeout_s + CLIENT_TIMEOUT_SLACK_S,
                },
            )
        except openai.APITimeoutError as exc:
            if _connection_failed(exc):
                error = f"connection failed: {_root_cause(exc)}"
                return _fault(Outcome.PROVIDER_ERROR, None, error, started, key)
            return _fault(Outcome.TIMEOUT, None, "the client timed out", started, key)
        except openai.APIConnectionError as exc:
            error = f"connection failed: {_root_cause(exc)}"
            return _fault(Outcome.PROVIDER_ERROR, None, error, started, key)
        except openai.APIStatusError as exc:
            message = _error_message(exc)
            outcome = outcome_for_status(exc.status_code, message)
            wait = retry_after(exc.response.headers)
            error = f"HTTP {exc.status_code}: {message}"
            if wait is not None:
                error = f"{error} (retry after {wait:g} s)"
            reply = _fault(outcome, exc.status_code, error, started, key)
            return replace(reply, retry_after_s=wait)
        reply = _parse_completion(
            response.content, response.status_code, loop.time() - started, key
        )
        # a model led to echo the key it was called with publishes none of it (C-9)
        return reply if key == NO_KEY else reply_without_key(reply, key)

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        for client in self._clients:
            await client.close()


def _pick_transport(transport: Transport) -> Transport:
    if transport == "auto":
        return "aiohttp" if importlib.util.find_spec("aiohttp") is not None else "httpx"
    if transport == "aiohttp" and importlib.util.find_spec("aiohttp") is None:
        raise ConfigError("the aiohttp transport needs the aiohttp package (openai[aiohttp])")
    if transport not in ("aiohttp", "httpx"):
        raise ConfigError(f"unknown transport {transport!r}; use auto, aiohttp or httpx")
    return transport


def _root_cause(exc: BaseException) -> str:
    """Return the innermost cause's message (``Connection refused``), not the client's summary.

    The official client words a refused connection as "Request timed out." or
    "Connection error."; the cause chain holds what really happened.
    """
    cause: BaseException = exc
    seen = 0
    while seen < 20:
        inner = cause.__cause__ or cause.__context__
        if inner is None:
            break
        cause, seen = inner, seen + 1
    text = str(cause).strip() or type(cause).__name__
    return text if cause is exc else f"{text} ({type(cause).__name__})"


def _connection_failed(exc: BaseException) -> bool:
    """Tell whether a client "timeout" was really a failed connection.

    The official client's aiohttp transport maps every aiohttp connection
    error (refused, reset, disconnected) to a connect *timeout*; the cause
    chain still holds the aiohttp error, which is not a timeout.
    """
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, TimeoutError):  # asyncio's and aiohttp's timeouts alike
            return False
        if type(cause).__module__.startswith("aiohttp"):
            return _is_aiohttp_connection_error(cause)
        cause = cause.__cause__ or cause.__context__
    return False


def _is_aiohttp_connection_error(exc: BaseException) -> bool:
    import aiohttp  # only reached when the aiohttp transport raised

    return isinstance(exc, aiohttp.ClientConnectionError) and not isinstance(
        exc, aiohttp.ServerTimeoutError
    )


def retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Return the wait a response asks for before a retry, in seconds, or ``None``.

    Reads ``retry-after-ms`` (OpenAI's, in milliseconds) first, then
    ``retry-after`` in seconds or as an HTTP date (counted from ``now``, the
    wall clock by default). A value that cannot be read, or is negative, is
    ignored.
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


class _BoundedClient(AsyncOpenAI):
    """The official client, except that an error body nested too deep is never decoded.

    The client decodes every error body with ``json.loads``, which recurses once
    per level of nesting; a hostile body nested tens of thousands deep would
    overflow the stack. Such a body is kept as text instead.
    """

    def _make_status_error_from_response(self, response: httpx2.Response) -> openai.APIStatusError:
        try:
            text = response.text
        except (httpx2.ResponseNotRead, UnicodeDecodeError):
            text = ""
        if nesting_within(text):
            return super()._make_status_error_from_response(response)
        message = f"Error code: {response.status_code} (a body nested too deep to read)"
        return self._make_status_error(message, body=text[:_SCAN_LIMIT], response=response)


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            code = inner.get("code")
            message = str(inner["message"])
            return f"{message} ({code})" if isinstance(code, str) else message
    try:
        text = exc.response.text
    except (httpx2.ResponseNotRead, UnicodeDecodeError):
        text = str(exc)
    return text[:_SCAN_LIMIT]


def _parse_completion(content: bytes, status: int, latency: float, key: str) -> ModelReply:
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
    outcome: Outcome, status: int | None, error: str, started: float, key: str
) -> ModelReply:
    """Return a fault's reply; its error text is redacted (C-9), then cut to the limit."""
    latency = asyncio.get_running_loop().time() - started
    error = redact_secrets(error, key)[:ERROR_TEXT_LIMIT]
    return ModelReply(outcome=outcome, latency_s=latency, http_status=status, error=error)
