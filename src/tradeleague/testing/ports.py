"""Loopback ports for tests: one that refuses and keeps refusing, one a child may listen on.

A test that needs "nothing listens there" must not name a fixed port (``:9``
may be served on another machine) nor bind a free port and let it go (another
process, or another test running beside it, may take it before the connect).
`refusing_port` binds a port and never listens on it: a connection to it is
refused at once, and no other socket can take the port while this process
holds it (for the rest of the process: a subprocess started by the test meets
the same refusal).

`listen_port` is for a child process told to listen on a port (``serve
--port``, ``run --http``): binding port 0 and letting it go hands out a port
from the kernel's ephemeral range, where every outgoing connection and every
other ``bind(0)`` on the machine may take it before the child binds. The port
is drawn at random below that range instead (where the kernel hands out
nothing by itself) and checked free.
"""

from __future__ import annotations

import atexit
import random
import socket
import threading
from pathlib import Path

__all__ = ["listen_port", "refusing_port", "refusing_url"]

_LOWEST = 20_000

_held: list[socket.socket] = []
_lock = threading.Lock()


@atexit.register
def _let_go() -> None:
    """Close the held sockets as the process ends (they were held on purpose until then)."""
    with _lock:
        for sock in _held:
            sock.close()
        _held.clear()


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


def _ephemeral_low() -> int:
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text(encoding="ascii")
        return int(text.split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default low end; elsewhere a guess, still checked free


def listen_port() -> int:
    """Return a free ``127.0.0.1`` port outside the ephemeral range, for a child to listen on."""
    top = max(_LOWEST + 1_000, _ephemeral_low())
    chooser = random.SystemRandom()
    for _ in range(200):
        port = chooser.randrange(_LOWEST, top)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free loopback port between {_LOWEST} and {top}")
