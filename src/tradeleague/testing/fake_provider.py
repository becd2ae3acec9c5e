"""A fake model provider: a real OpenAI-compatible HTTP server on loopback.

The server speaks ``POST /v1/chat/completions`` and ``GET /v1/models`` with the
same JSON bodies (``usage`` included) and OpenAI-style error bodies as a real
provider, and plays a script per model name: answers (fixed, queued, or a
function of the request), latencies and faults (see ``fake_script``). It
records every request it received, so a test can assert the exact messages and
parameters sent. It is an asyncio server (uvicorn), so one instance holds a
thousand slow requests at once.

Use it from tests, sync or async::

    with FakeProvider() as fake:
        fake.enqueue("my-model", '{"direction": "up", "rationale": "r"}')
        ...  # point a provider at fake.url
        assert fake.requests[0].body["temperature"] == 0.3

or run it from the command line for a dry run of a league, then point the league
at it as a custom OpenAI-compatible provider (base URL
``http://127.0.0.1:8089/v1``, any key)::

    python -m tradeleague.testing.fake_provider --port 8089 --script script.json

The command prints ``listening on <base URL>`` once the port is open
(``--port 0`` picks a free port) and runs until interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from tradeleague.calls import Message
from tradeleague.llm.dialects import DIALECTS, Dialect
from tradeleague.testing.fake_dialects import dialect_refusal
from tradeleague.testing.fake_script import (
    HTTP_FAULTS,
    KEY_ECHO_FAULTS,
    Behaviour,
    Fault,
    Script,
    echo_key_message,
    estimate_tokens,
    render_text,
)

__all__ = ["FakeProvider", "ReceivedRequest", "Responder", "main"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReceivedRequest:
    """One request the fake server received, as it arrived."""

    path: str
    model: str
    messages: tuple[Message, ...]
    """The messages, tool calls and tool-call ids included (``null`` content reads ``""``)."""
    body: Mapping[str, Any]
    """The whole JSON body (temperature, max tokens, extra-body fields...)."""
    authorization: str | None
    received_at: float
    """``time.monotonic()`` when the request arrived."""


Responder = Callable[[ReceivedRequest], "str | Behaviour"]
"""A function of the request that returns the answer text or a whole behaviour."""


def _error(
    status: int,
    code: str,
    message: str,
    kind: str | None = None,
    *,
    retry_after_s: float | None = None,
) -> JSONResponse:
    body = {
        "error": {
            "message": message,
            "type": kind or ("invalid_request_error" if status < 500 else "server_error"),
            "param": None,
            "code": code,
        }
    }
    headers = None
    if retry_after_s is not None:
        headers = {
            "retry-after-ms": str(round(retry_after_s * 1000)),
            "retry-after": str(math.ceil(retry_after_s)),
        }
    return JSONResponse(body, status_code=status, headers=headers)


class FakeProvider:
    """A scripted OpenAI-compatible server on a free loopback port.

    Parameters
    ----------
    script
        Behaviours per model (and a default); more can be added later with
        ``script_model``, ``enqueue`` and ``respond_with``.
    host, port
        Where to listen; port 0 picks a free port.
    require_key
        When set, any other bearer key gets HTTP 401.
    http
        The server's HTTP parser: ``h11`` (pure Python, the default) or
        ``httptools`` (C, several times less CPU per request, for benchmarks).
    dialect
        When set, play a server of that kind: structured output in any other
        dialect's fields gets the error such a server answers with
        (``fake_dialects.dialect_refusal``); by default every field is accepted.
    context
        When set, the model's context in tokens: a request whose messages
        (``estimate_tokens``) plus its ``max_tokens`` exceed it gets HTTP 400
        with the error OpenAI and vLLM send, quoting both counts.
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        require_key: str | None = None,
        http: Literal["h11", "httptools"] = "h11",
        dialect: Dialect | None = None,
        context: int | None = None,
    ) -> None:
        script = script or Script()
        self._context = context
        self._dialect = dialect
        self._http = http
        self._lock = threading.Lock()
        self._fixed: dict[str, Behaviour] = dict(script.models)
        self._queues: dict[str, deque[Behaviour]] = {
            name: deque(items) for name, items in script.queues.items()
        }
        self._responders: dict[str, Responder] = {}
        self._raw: dict[str, tuple[int, bytes, dict[str, str]]] = {}
        self._default = script.default
        self._requests: list[ReceivedRequest] = []
        self._connections = 0
        self._ids = itertools.count(1)
        self._host = host
        self._port = port
        self._require_key = require_key
        self._stopping = threading.Event()
        self._stop_event = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )

    # -- scripting -------------------------------------------------------------

    def script_model(self, model: str, behaviour: Behaviour | str) -> None:
        """Set the fixed behaviour (or fixed answer text) of ``model``."""
        with self._lock:
            self._fixed[model] = _as_behaviour(behaviour)

    def enqueue(self, model: str, *answers: Behaviour | str) -> None:
        """Queue answers for ``model``, each played once, before its fixed behaviour."""
        with self._lock:
            self._queues.setdefault(model, deque()).extend(_as_behaviour(a) for a in answers)

    def respond_with(self, model: str, responder: Responder) -> None:
        """Answer ``model`` with a function of each request (after its queue is empty)."""
        with self._lock:
            self._responders[model] = responder

    def respond_raw(
        self, model: str, status: int, body: bytes, headers: Mapping[str, str] | None = None
    ) -> None:
        """Answer ``model`` with exactly these bytes, status and headers (hostile-body tests)."""
        with self._lock:
            self._raw[model] = (status, body, dict(headers or {}))

    @property
    def requests(self) -> list[ReceivedRequest]:
        """Return a copy of the requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def connections(self) -> int:
        """Return how many TCP connections the server has accepted so far."""
        with self._lock:
            return self._connections

    def _connected(self) -> None:
        with self._lock:
            self._connections += 1

    def requests_for(self, model: str) -> list[ReceivedRequest]:
        """Return the requests received for ``model``."""
        return [r for r in self.requests if r.model == model]

    # -- lifecycle -------------------------------------------------------------

    @property
    def port(self) -> int:
        """Return the port the server listens on (after ``start``)."""
        if self._socket is None:
            raise RuntimeError("the fake provider is not started")
        return int(self._socket.getsockname()[1])

    @property
    def url(self) -> str:
        """Return the OpenAI-compatible base URL, e.g. ``http://127.0.0.1:41234/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    def start(self) -> FakeProvider:
        """Open the port and serve in a background thread; return ``self``."""
        if self._thread is not None:
            raise RuntimeError("the fake provider is already started")
        self._socket = _bind(self._host, self._port)
        self._server = uvicorn.Server(self._config())
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"fake-provider-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10.0
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the fake provider did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        """Stop serving; requests still hanging get HTTP 503."""
        if self._server is None or self._thread is None:
            return
        self._stopping.set()
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the server loop already closed
                self._loop.call_soon_threadsafe(self._stop_event.set)
        self._server.should_exit = True
        self._thread.join(timeout=10.0)
        if self._socket is not None:
            self._socket.close()
        self._server = None
        self._thread = None

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the command-line mode)."""
        self._socket = _bind(self._host, self._port)
        self._server = uvicorn.Server(self._config())
        print(f"listening on {self.url}", flush=True)
        self._server.run(sockets=[self._socket])

    def _config(self) -> uvicorn.Config:
        connected = self._connected
        base = H11Protocol if self._http == "h11" else HttpToolsProtocol

        class Counted(base):  # type: ignore[valid-type,misc]
            """The chosen HTTP protocol, counting each accepted connection."""

            def connection_made(self, transport: asyncio.Transport) -> None:
                connected()
                super().connection_made(transport)

        return uvicorn.Config(
            self.app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="none",
            http=Counted,
            backlog=4096,
            timeout_keep_alive=30,
            timeout_graceful_shutdown=1,
        )

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> FakeProvider:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.stop)

    # -- HTTP ------------------------------------------------------------------

    async def _models(self, request: Request) -> Response:
        with self._lock:
            names = sorted({*self._fixed, *self._queues, *self._responders})
        data = [{"id": n, "object": "model", "created": 0, "owned_by": "fake"} for n in names]
        return JSONResponse({"object": "list", "data": data})

    async def _chat(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except json.JSONDecodeError:
            return _error(400, "invalid_json", "We could not parse the JSON body of your request.")
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return _error(400, "missing_model", "You must provide a model parameter.")
        raw_messages = body.get("messages")
        if not isinstance(raw_messages, list) or not raw_messages:
            return _error(400, "missing_messages", "'messages' must be a non-empty array.")
        received = ReceivedRequest(
            path=request.url.path,
            model=body["model"],
            messages=tuple(_message(m) for m in raw_messages),
            body=body,
            authorization=request.headers.get("authorization"),
            received_at=time.monotonic(),
        )
        with self._lock:
            self._requests.append(received)
        if self._require_key is not None and received.authorization != (
            f"Bearer {self._require_key}"
        ):
            return _error(401, "invalid_api_key", "Incorrect API key provided.")
        if self._dialect is not None:
            refusal = dialect_refusal(self._dialect, body)
            if refusal is not None:
                return _error(refusal[0], "unsupported_output", refusal[1])
        if self._context is not None:
            overflow = _context_overflow(received, self._context)
            if overflow is not None:
                return _error(400, "context_length_exceeded", overflow)
        with self._lock:
            raw = self._raw.get(received.model)
        if raw is not None:
            return Response(raw[1], status_code=raw[0], headers=raw[2])
        behaviour = self._behaviour_for(received)
        if behaviour is None:
            return _error(404, "model_not_found", f"The model `{received.model}` does not exist.")
        wait = None if behaviour.fault is Fault.HANG else behaviour.latency_s
        if (wait is None or wait > 0) and await self._stopped_within(wait):
            return _error(503, "shutting_down", "The server is shutting down.")
        if behaviour.fault is not None and behaviour.fault in HTTP_FAULTS:
            status, code, message = HTTP_FAULTS[behaviour.fault]
            return _error(status, code, message, retry_after_s=behaviour.retry_after_s)
        if behaviour.fault in KEY_ECHO_FAULTS:
            bearer = (received.authorization or "").removeprefix("Bearer ")
            return _error(401, "invalid_api_key", echo_key_message(behaviour.fault, bearer))
        if behaviour.fault is Fault.MALFORMED_JSON:
            return Response(
                '{"id": "chatcmpl-broken", "choices": [{"message": {"content": "tru',
                media_type="application/json",
            )
        return JSONResponse(self._completion(received, behaviour))

    async def _stopped_within(self, seconds: float | None) -> bool:
        """Wait ``seconds`` (forever if ``None``); return early, true, if the server stops."""
        self._loop = asyncio.get_running_loop()
        if self._stopping.is_set():
            return True
        try:
            await asyncio.wait_for(self._stop_event.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def _behaviour_for(self, received: ReceivedRequest) -> Behaviour | None:
        model = received.model
        with self._lock:
            queue = self._queues.get(model)
            if queue:
                return queue.popleft()
            responder = self._responders.get(model)
            fixed = self._fixed.get(model)
        if responder is not None:
            return _as_behaviour(responder(received))
        return fixed if fixed is not None else self._default

    def _completion(self, received: ReceivedRequest, behaviour: Behaviour) -> dict[str, Any]:
        text, finish_reason = render_text(behaviour)
        prompt = behaviour.prompt_tokens
        if prompt is None:
            prompt = sum(estimate_tokens(m.content) for m in received.messages)
        completion = behaviour.completion_tokens
        if completion is None:
            completion = estimate_tokens(text)
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
        if behaviour.tool_calls:
            # as OpenAI does: a reply that only calls tools has ``content: null``
            message["content"] = text or None
            message["tool_calls"] = [dict(c) for c in behaviour.tool_calls]
            finish_reason = "tool_calls"
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": received.model,
            "system_fingerprint": "fp_fake",
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }


def _context_overflow(received: ReceivedRequest, context: int) -> str | None:
    """Return OpenAI's context error when ``received`` does not fit ``context`` tokens."""
    prompt = sum(estimate_tokens(m.content) for m in received.messages)
    answer = received.body.get("max_tokens") or received.body.get("max_completion_tokens") or 0
    answer = answer if isinstance(answer, int) else 0
    if prompt + answer <= context:
        return None
    return (
        f"This model's maximum context length is {context} tokens. However, you requested "
        f"{prompt + answer} tokens ({prompt} in the messages, {answer} in the completion). "
        "Please reduce the length of the messages or completion."
    )


def _message(raw: object) -> Message:
    """Read one received message, tool fields included (as sent, or empty)."""
    data = raw if isinstance(raw, Mapping) else {}
    calls = data.get("tool_calls")
    call_id = data.get("tool_call_id")
    return Message(
        str(data.get("role", "")),
        str(data.get("content") or ""),
        tool_calls=tuple(c for c in calls if isinstance(c, Mapping))
        if isinstance(calls, list)
        else (),
        tool_call_id=call_id if isinstance(call_id, str) else None,
    )


def _as_behaviour(answer: Behaviour | str) -> Behaviour:
    return answer if isinstance(answer, Behaviour) else Behaviour(text=answer)


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(4096)
    sock.setblocking(False)
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    """Run the fake provider from the command line; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tradeleague.testing.fake_provider",
        description="A scripted OpenAI-compatible server for tests and dry runs.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089, help="0 picks a free port")
    parser.add_argument("--script", type=Path, help="a JSON script (see fake_script)")
    parser.add_argument("--require-key", default=None, help="reject any other bearer key")
    parser.add_argument(
        "--http", choices=["h11", "httptools"], default="h11", help="the server's HTTP parser"
    )
    parser.add_argument(
        "--dialect", choices=DIALECTS, default=None, help="accept only this structured output"
    )
    args = parser.parse_args(argv)
    script = Script.from_file(args.script) if args.script else Script(default=Behaviour())
    FakeProvider(
        script,
        host=args.host,
        port=args.port,
        require_key=args.require_key,
        http=args.http,
        dialect=args.dialect,
    ).serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
