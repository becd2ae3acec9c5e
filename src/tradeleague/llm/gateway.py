"""The gateway: one code path to every model, with a hard deadline per call (C-2, C-5).

A round hands the gateway all its calls at once (``call_all``). Every call's
deadline starts at that moment, the same instant for every participant, and
lasts ``CallParams.timeout_s`` (the format's response window). Calls run
concurrently: no call waits for a slower one.

Concurrency limits and the deadline
    Each provider has a limit on calls in flight (a semaphore). A call waits in
    a first-come queue for a slot, and the wait counts against its deadline: a
    call still queued when its deadline passes ends ``timeout`` without being
    sent (its record says so, with ``latency_ms`` 0 and the wait in
    ``queued_ms``). Calls enter the queue in the order given, so the league
    should order them fairly (a seeded shuffle) and set each limit at least as
    large as that provider's share of the roster whenever the provider allows,
    so that no one queues at all.

Retries
    Only where the format allows (``CallParams.retries``), only after
    ``rate_limited`` or ``provider_error``, never after a request the provider
    may have received without answering (``ModelReply.maybe_received``: the
    connection dropped after it was written), and only inside the deadline: a
    retry starts only if its wait ends before the deadline. The wait is what
    the provider asked for (``Retry-After``, in ``ModelReply.retry_after_s``)
    or else an exponential back-off; a ``Retry-After`` past the deadline means
    no retry, never a shorter wait. Each attempt is recorded; the caller gets
    the last.

Faults
    A provider must turn every fault into an ``Outcome``; if one raises
    anyway (a bug, an exception its client library did not map), that call
    ends ``provider_error``, its record naming the exception's type (its message
    only for the types in ``SAFE_PROVIDER_ERRORS``), and the other calls of the
    batch go on and are recorded as usual (C-5). A ``TimeoutError`` it raises
    before the deadline is ``timeout``, recorded as the provider's, not the
    deadline's. Every error text is recorded
    with the key sent and anything else that looks like a secret redacted (C-9).

Timings are whole milliseconds, rounded up, so a reply's latency in replay is
exactly the latency recorded live.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from tradeleague.calls import Outcome
from tradeleague.clock import Clock, WallClock
from tradeleague.errors import ConfigError
from tradeleague.llm.records import CallKey, CallRecord, ReplayMiss
from tradeleague.llm.redact import redact_secrets, reply_without_key
from tradeleague.llm.token_prices import PriceTable, call_cost
from tradeleague.llm.types import UNDER_GATEWAY_DEADLINE, ChatRequest, ModelReply, Provider

__all__ = [
    "RETRYABLE",
    "SAFE_KEY_ERRORS",
    "SAFE_PROVIDER_ERRORS",
    "ApiKey",
    "Call",
    "Gateway",
    "ModelGateway",
    "Recorder",
    "ceil_ms",
    "key_error_text",
    "provider_error_text",
]

ApiKey = str | Callable[[], str] | None
"""A key, a function that reads one (an exception means ``key_unreadable``), or
``None`` for the provider's own (its preset's environment variable)."""

Recorder = Callable[[CallRecord], Awaitable[None] | None]
"""Receives every record (each attempt, in order), e.g. to write a ``ModelCalled`` event."""

RETRYABLE = frozenset({Outcome.RATE_LIMITED, Outcome.PROVIDER_ERROR})
"""Outcomes after which a retry may help."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One call a round wants made."""

    request: ChatRequest
    provider: str
    key: CallKey
    api_key: ApiKey = None


class ModelGateway(Protocol):
    """What a round needs of a gateway: the live ``Gateway`` and ``ReplayGateway`` alike."""

    async def call_all(self, calls: Sequence[Call]) -> Sequence[CallRecord | ReplayMiss]:
        """Make ``calls`` concurrently, all asked at the same instant; return in order."""
        ...


def ceil_ms(seconds: float) -> int:
    """Return ``seconds`` as whole milliseconds, rounded up (never below 0)."""
    return max(0, math.ceil(seconds * 1000 - 1e-9))


class Gateway:
    """The live gateway.

    Parameters
    ----------
    providers
        The providers, each known by its ``name``.
    limits
        Calls in flight allowed per provider name; others get ``default_limit``.
    prices
        The price table for the cost of each call.
    recorder
        Called with every record once the call is over.
    clock
        The source of ``asked_at`` (wall time); latencies use the event loop's
        monotonic clock.
    retry_backoff_s
        The first retry's back-off; each further retry doubles it.
    """

    def __init__(
        self,
        providers: Iterable[Provider],
        *,
        limits: Mapping[str, int] | None = None,
        default_limit: int = 64,
        prices: PriceTable | None = None,
        recorder: Recorder | None = None,
        clock: Clock | None = None,
        retry_backoff_s: float = 0.25,
    ) -> None:
        self._providers = {p.name: p for p in providers}
        limits = dict(limits or {})
        unknown = set(limits) - set(self._providers)
        if unknown:
            raise ConfigError(f"limits name unknown providers {sorted(unknown)}")
        for name in self._providers:
            if limits.get(name, default_limit) < 1:
                raise ConfigError(f"the concurrency limit of {name!r} must be at least 1")
        self._limits = {n: asyncio.Semaphore(limits.get(n, default_limit)) for n in self._providers}
        self._prices = prices or PriceTable()
        self._recorder = recorder
        self._clock = clock or WallClock()
        self._backoff = retry_backoff_s

    def provider(self, name: str) -> Provider:
        """Return the provider called ``name``.

        Raises
        ------
        ConfigError
            If there is none; the message lists the known names.
        """
        try:
            return self._providers[name]
        except KeyError:
            known = ", ".join(sorted(self._providers)) or "none"
            raise ConfigError(f"unknown provider {name!r}; known: {known}") from None

    async def call(self, call: Call) -> CallRecord:
        """Make one call, its deadline starting now; return its final record."""
        return (await self.call_all([call]))[0]

    async def call_all(self, calls: Sequence[Call]) -> list[CallRecord]:
        """Make ``calls`` concurrently, all asked now; return their final records in order.

        Raises
        ------
        ConfigError
            If a call names an unknown provider (checked before anything is sent).
        """
        for c in calls:
            self.provider(c.provider)
        loop = asyncio.get_running_loop()
        asked = loop.time()
        asked_at = self._clock.now()
        # One timer per distinct deadline of the batch, not one per call: a
        # round's calls share their window, so 1,000 calls set one timer.
        deadlines: dict[float, _Deadline] = {}
        runs: list[Coroutine[object, object, CallRecord]] = []
        for c in calls:
            window = c.request.params.timeout_s
            deadline = deadlines.get(window)
            if deadline is None:
                deadline = deadlines[window] = _Deadline(asked + window)
            runs.append(self._run(c, asked, asked_at, deadline))
        timers = [loop.call_at(d.at, d.expire) for d in deadlines.values()]
        try:
            token = UNDER_GATEWAY_DEADLINE.set(True)
            try:
                if len(runs) == 1:  # one call (an agent's turn): awaited in the caller's task
                    return [await runs[0]]
                gathered = asyncio.gather(*runs)  # its tasks copy the context set above
            finally:
                UNDER_GATEWAY_DEADLINE.reset(token)
            return list(await gathered)
        finally:
            for timer in timers:
                timer.cancel()

    async def _run(
        self, call: Call, asked: float, asked_at: datetime, deadline: _Deadline
    ) -> CallRecord:
        loop = asyncio.get_running_loop()
        request = call.request
        key = _read_key(call.api_key)
        attempts: list[tuple[ModelReply, int, int, int]] = []
        while True:
            if isinstance(key, ModelReply):
                reply, queued, latency = key, 0, 0
            else:
                reply, queued, latency = await self._attempt(call, key, deadline)
                if reply.error is not None:  # a provider's error text may quote the key (C-9)
                    reply = replace(reply, error=redact_secrets(reply.error, key))
                reply = reply_without_key(reply, key)
            attempts.append((reply, queued, latency, ceil_ms(loop.time() - asked)))
            wait = reply.retry_after_s
            if wait is None:
                wait = self._backoff * 2 ** (len(attempts) - 1)
            if (
                reply.outcome not in RETRYABLE
                or reply.maybe_received
                or len(attempts) > request.params.retries
                or loop.time() + wait >= deadline.at
            ):
                break
            await asyncio.sleep(wait)
        records = [
            self._record(call, i, i == len(attempts) - 1, reply, asked_at, q, lat, el)
            for i, (reply, q, lat, el) in enumerate(attempts)
        ]
        for record in records:
            await self._emit(record)
        return records[-1]

    async def _attempt(
        self, call: Call, api_key: str | None, deadline: _Deadline
    ) -> tuple[ModelReply, int, int]:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        queued_from = loop.time()
        if task is None or deadline.fired or deadline.at <= queued_from:
            return await self._attempt_scoped(call, api_key, deadline.at)
        provider = self._providers[call.provider]
        sent: float | None = None
        cancelling = task.cancelling()
        expired = False
        deadline.tasks.add(task)
        try:
            try:
                async with self._limits[call.provider]:
                    sent = loop.time()
                    reply = await provider.complete(call.request, api_key)
            finally:
                deadline.tasks.discard(task)
                if task in deadline.cancelled:  # as asyncio.timeout does on its way out
                    deadline.cancelled.discard(task)
                    expired = task.uncancel() <= cancelling
        except asyncio.CancelledError:
            if not expired:  # a cancellation from outside, not the deadline
                raise
            return self._past_deadline(call, queued_from, sent, loop.time())
        except TimeoutError as exc:
            if expired:
                return self._past_deadline(call, queued_from, sent, loop.time())
            reply = _raised(exc)
        except Exception as exc:
            reply = _raised(exc)
        return _timed(reply, queued_from, sent, loop.time())

    async def _attempt_scoped(
        self, call: Call, api_key: str | None, deadline: float
    ) -> tuple[ModelReply, int, int]:
        """``_attempt`` for an attempt that starts at or past its deadline (a late retry)."""
        loop = asyncio.get_running_loop()
        provider = self._providers[call.provider]
        queued_from = loop.time()
        sent: float | None = None
        scope = asyncio.timeout_at(deadline)
        try:
            async with scope, self._limits[call.provider]:
                sent = loop.time()
                reply = await provider.complete(call.request, api_key)
        except TimeoutError as exc:
            if scope.expired():
                return self._past_deadline(call, queued_from, sent, loop.time())
            reply = _raised(exc)
        except Exception as exc:
            reply = _raised(exc)
        return _timed(reply, queued_from, sent, loop.time())

    @staticmethod
    def _past_deadline(
        call: Call, queued_from: float, sent: float | None, ended: float
    ) -> tuple[ModelReply, int, int]:
        """Return the timeout of an attempt the deadline ended, queued or sent."""
        if sent is None:
            error = "still queued for a concurrency slot at the deadline: never sent"
            return ModelReply(outcome=Outcome.TIMEOUT, error=error), ceil_ms(ended - queued_from), 0
        error = f"no reply within {call.request.params.timeout_s} s of the ask"
        reply = ModelReply(outcome=Outcome.TIMEOUT, error=error)
        return reply, ceil_ms(sent - queued_from), ceil_ms(ended - sent)

    def _record(
        self,
        call: Call,
        attempt: int,
        final: bool,
        reply: ModelReply,
        asked_at: datetime,
        queued_ms: int,
        latency_ms: int,
        elapsed_ms: int,
    ) -> CallRecord:
        request = call.request
        return CallRecord(
            key=call.key,
            attempt=attempt,
            final=final,
            provider=call.provider,
            model=request.model,
            messages=request.messages,
            params=request.params,
            json_schema=request.json_schema,
            tools=request.tools,
            outcome=reply.outcome,
            text=reply.text,
            tool_calls=reply.tool_calls,
            finish_reason=reply.finish_reason,
            http_status=reply.http_status,
            error=reply.error,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            cost_micros=call_cost(
                self._prices.get(request.model),
                reply.prompt_tokens,
                reply.completion_tokens,
                answered=reply.outcome is Outcome.ANSWERED,
            ),
            asked_at=asked_at,
            queued_ms=queued_ms,
            latency_ms=latency_ms,
            elapsed_ms=elapsed_ms,
        )

    async def _emit(self, record: CallRecord) -> None:
        if self._recorder is None:
            return
        result = self._recorder(record)
        if result is not None and inspect.isawaitable(result):
            await result

    async def aclose(self) -> None:
        """Close every provider that holds connections."""
        for provider in self._providers.values():
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()

    async def __aenter__(self) -> Gateway:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


SAFE_KEY_ERRORS = frozenset(
    {
        "tradeleague.agents.spec.KeyNotSet",
        "tradeleague.keys.vault.KeyUnreadable",
    }
)
"""Exceptions (``module.QualName``, exact type) whose message is known to hold no secret.

A key reader that fails with one of these has its message recorded (which
variable is unset, why a sealed key does not open); any other exception is
recorded by its type name only, since its message may quote the key or its
path (C-9). Named, not imported: the gateway does not depend on ``agents``
or ``keys``."""


def key_error_text(exc: BaseException) -> str:
    """Return what a record may say about a key reader's failure (C-9).

    The message of an exception in ``SAFE_KEY_ERRORS``, else only its type name.
    """
    kind = type(exc)
    if f"{kind.__module__}.{kind.__qualname__}" in SAFE_KEY_ERRORS:
        return f"the key could not be read ({kind.__name__}: {exc})"
    return f"the key could not be read ({kind.__name__})"


SAFE_PROVIDER_ERRORS = frozenset({"openai.APIResponseValidationError"})
"""Exceptions (``module.QualName``, exact type) a provider may raise whose message holds no secret.

Any other exception out of ``Provider.complete`` is recorded by its type name
only: its message may quote the request, the key or a server's reply (C-9)."""


def provider_error_text(exc: BaseException) -> str:
    """Return what a record may say about an exception a provider raised (C-5, C-9).

    The type name always; the message (redacted) too for ``SAFE_PROVIDER_ERRORS``.
    """
    kind = type(exc)
    if f"{kind.__module__}.{kind.__qualname__}" in SAFE_PROVIDER_ERRORS:
        return f"the provider raised {kind.__name__}: {redact_secrets(str(exc))}"
    return f"the provider raised {kind.__name__}"


def _raised(exc: Exception) -> ModelReply:
    """Return the reply for an exception out of ``Provider.complete`` before the deadline.

    A ``TimeoutError`` is the provider's own timeout; anything else is a provider
    that broke its contract (C-5).
    """
    outcome = Outcome.TIMEOUT if isinstance(exc, TimeoutError) else Outcome.PROVIDER_ERROR
    return ModelReply(outcome=outcome, error=provider_error_text(exc))


def _timed(
    reply: ModelReply, queued_from: float, sent: float | None, ended: float
) -> tuple[ModelReply, int, int]:
    """Return ``reply`` with its queue wait and latency in whole milliseconds, rounded up."""
    if sent is None:  # unreachable: only the deadline ends a call still queued
        sent = queued_from
    return reply, ceil_ms(sent - queued_from), ceil_ms(ended - sent)


class _Deadline:
    """The deadline shared by the calls of one batch with the same window, and its timer.

    The timer (``expire``) cancels every task still inside an attempt of this
    deadline, as ``asyncio.timeout_at`` would for each; the attempt turns that
    cancellation back into a ``timeout`` (and lets any other one through).
    """

    __slots__ = ("at", "cancelled", "fired", "tasks")

    def __init__(self, at: float) -> None:
        self.at = at
        self.fired = False
        self.tasks: set[asyncio.Task[object]] = set()
        self.cancelled: set[asyncio.Task[object]] = set()

    def expire(self) -> None:
        self.fired = True
        for task in self.tasks:
            if not task.done():
                self.cancelled.add(task)
                task.cancel()


def _read_key(api_key: ApiKey) -> str | ModelReply | None:
    if api_key is None or isinstance(api_key, str):
        return api_key
    try:
        return api_key()
    except Exception as exc:
        return ModelReply(outcome=Outcome.KEY_UNREADABLE, error=key_error_text(exc))
