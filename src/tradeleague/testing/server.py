"""Serve an ASGI app under a real uvicorn server on a free loopback port."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

__all__ = ["serve_asgi"]


@contextlib.contextmanager
def serve_asgi(app: Any, *, start_timeout_s: float = 10.0) -> Iterator[str]:
    """Run ``app`` in a background thread; yield its base URL (``http://127.0.0.1:PORT``).

    Raises
    ------
    RuntimeError
        If the server has not started within ``start_timeout_s``.
    """
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(start_timeout_s)
