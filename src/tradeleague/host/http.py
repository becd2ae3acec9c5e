"""The host's HTTP side: ``GET /healthz`` and ``GET /metrics`` on ``--http HOST:PORT``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tradeleague.errors import ConfigError
from tradeleague.host.metrics import CONTENT_TYPE, Metrics

__all__ = ["metrics_route", "parse_hostport", "serve_http"]

_log = logging.getLogger("tradeleague.host")


def parse_hostport(text: str) -> tuple[str, int]:
    """Return ``(host, port)`` of ``HOST:PORT``.

    Raises
    ------
    ConfigError
        If it is not such a pair.
    """
    host, _, port = text.strip().rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"--http {text!r} is not HOST:PORT, e.g. 127.0.0.1:9108")
    return host.strip("[]"), int(port)


def metrics_route(metrics: Metrics) -> Route:
    """Return the ``GET /metrics`` route of ``metrics``."""

    async def handle(_request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    return Route("/metrics", handle, methods=["GET"])


def host_app(metrics: Metrics, health: Callable[[], dict[str, Any]]) -> Starlette:
    """Return the host's ASGI app."""

    async def healthz(_request: Request) -> Response:
        body = health()
        return JSONResponse(body, status_code=200 if body.get("ok") else 503)

    return Starlette(routes=[Route("/healthz", healthz, methods=["GET"]), metrics_route(metrics)])


async def serve_http(
    address: str, metrics: Metrics, health: Callable[[], dict[str, Any]], stop: asyncio.Event
) -> None:
    """Serve /healthz and /metrics on ``address`` until ``stop`` is set."""
    host, port = parse_hostport(address)
    config = uvicorn.Config(
        host_app(metrics, health), host=host, port=port, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    # the host handles SIGTERM/Ctrl-C itself: uvicorn must not take them over
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]

    async def listen() -> None:
        try:
            await server.serve()
        except SystemExit:  # uvicorn's answer to a port it cannot take
            return

    task = asyncio.create_task(listen())
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():  # uvicorn exits when it cannot listen: the rounds go on without it
        stopper.cancel()
        _log.error("cannot serve /healthz and /metrics", extra={"address": address})
        return
    server.should_exit = True
    await task
