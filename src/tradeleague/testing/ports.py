"""A loopback port that refuses every connection, and keeps refusing.

A test that needs "nothing listens there" must not name a fixed port (``:9``
may be served on another machine) nor bind a free port and let it go (another
process, or another test running beside it, may take it before the connect).
`refusing_port` binds a port and never listens on it: a connection to it is
refused at once, and no other socket can take the port while this process
holds it (for the rest of the process: a subprocess started by the test meets
the same refusal).
"""

from __future__ import annotations

import socket
import threading

__all__ = ["refusing_port", "refusing_url"]

_held: list[socket.socket] = []
_lock = threading.Lock()


def refusing_port() -> int:
    """Return a ``127.0.0.1`` port that refuses connections while this process lives."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))  # bound, never listening: a connect is refused (RST)
    with _lock:
        _held.append(sock)
    port: int = sock.getsockname()[1]
    return port


def refusing_url(path: str = "") -> str:
    """Return ``http://127.0.0.1:PORT`` + ``path`` on a `refusing_port`."""
    return f"http://127.0.0.1:{refusing_port()}{path}"
