"""A chat-completions server that drops its connections on purpose, and counts what it read.

Each mode is a way a real server (or a proxy before it) ends a connection:

``answer``
    answer every request, keep the connection open (keep-alive);
``reset_before_read``
    accept the connection and reset it (TCP RST) before reading anything;
``reset_after_read``
    read the whole request, then reset the connection without answering;
``close_after_answer``
    answer (claiming keep-alive), then close the connection;
``half_close_when_idle``
    answer, and after ``idle_s`` without a next request half-close the
    connection (send FIN, keep reading), as a server's keep-alive timer does.

It counts the connections it accepted and the requests it read whole, each
connection's too, so a test can check that every call reached it exactly once.
``settled`` is released each time a connection was closed (or half-closed) by
the server, so a test can wait for that before its next call instead of
sleeping. Plain blocking sockets, one thread per connection: the server's close
happens in its own thread, as a real server's does in its own process.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from types import TracebackType
from typing import Literal

__all__ = ["ANSWER", "DroppingServer", "Mode"]

Mode = Literal[
    "answer", "reset_before_read", "reset_after_read", "close_after_answer", "half_close_when_idle"
]

ANSWER = '{"direction": "up", "rationale": "r"}'
_BODY = json.dumps(
    {
        "choices": [{"message": {"content": ANSWER}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5},
    }
).encode()
_RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    + f"Content-Length: {len(_BODY)}\r\n\r\n".encode()
    + _BODY
)


class DroppingServer:
    """The server, on a free loopback port; use as a context manager.

    Parameters
    ----------
    mode
        How it ends connections (see the module's text).
    idle_s
        For ``half_close_when_idle``: how long a connection may wait idle.
    """

    def __init__(self, mode: Mode, *, idle_s: float = 0.05) -> None:
        self.mode = mode
        self.idle_s = idle_s
        self.connections = 0
        self.requests = 0
        self.per_connection: list[int] = []
        self.settled = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._half_closed: set[int] = set()
        self._open: set[socket.socket] = set()

    @property
    def url(self) -> str:
        """Return the base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> DroppingServer:
        accept = threading.Thread(target=self._accept, name="dropping-server", daemon=True)
        accept.start()
        self._threads.append(accept)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        self._listener.close()
        with self._lock:
            open_now = list(self._open)
        for conn in open_now:  # wakes the threads blocked reading a connection
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                index = self.connections
                self.connections += 1
                self.per_connection.append(0)
                self._open.add(conn)
            thread = threading.Thread(target=self._serve, args=(conn, index), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self, conn: socket.socket, index: int) -> None:
        try:
            self._serve_one(conn, index)
        finally:
            with self._lock:
                self._open.discard(conn)

    def _serve_one(self, conn: socket.socket, index: int) -> None:
        with conn:
            if self.mode == "reset_before_read":
                _reset(conn)
                self.settled.release()
                return
            pending = b""
            while True:
                if (
                    self.mode == "half_close_when_idle"
                    and self.per_connection[index]
                    and not self.settled_on(index)
                ):
                    conn.settimeout(self.idle_s)
                request, pending = _read_request(conn, pending)
                if request is _IDLE:
                    conn.shutdown(socket.SHUT_WR)  # FIN, as a keep-alive timer sends it
                    with self._lock:
                        self._half_closed.add(index)
                    self.settled.release()
                    conn.settimeout(None)  # a request sent on it now is still read and counted
                    continue
                if request is None:
                    return
                self._count(index)
                if self.mode == "half_close_when_idle" and self.settled_on(index):
                    return  # a request on a half-closed connection: counted, never answered
                if self.mode == "reset_after_read":
                    _reset(conn)
                    self.settled.release()
                    return
                conn.sendall(_RESPONSE)
                if self.mode == "close_after_answer":
                    conn.shutdown(socket.SHUT_RDWR)
                    conn.close()
                    self.settled.release()
                    return

    def settled_on(self, index: int) -> bool:
        """Return whether connection ``index`` has been half-closed (its write side shut)."""
        return index in self._half_closed

    def _count(self, index: int) -> None:
        with self._lock:
            self.requests += 1
            self.per_connection[index] += 1


_IDLE = b"<idle>"


def _reset(conn: socket.socket) -> None:
    """Close with a TCP reset: linger on, zero seconds."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def _read_request(conn: socket.socket, pending: bytes) -> tuple[bytes | None, bytes]:
    """Read one whole request (head and ``Content-Length`` body) after ``pending`` bytes.

    Returns the request and the bytes read past it; ``_IDLE`` when the
    connection stayed idle past its timeout; ``None`` when it ended.
    """
    data = pending
    try:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None, b""
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None, b""
            rest += chunk
    except TimeoutError:
        return _IDLE, data
    except OSError:
        return None, b""
    return head + b"\r\n\r\n" + rest[:length], rest[length:]
