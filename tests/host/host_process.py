"""Host subprocesses for the host tests: start, wait for, signal, read metrics."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tradeleague.testing.ports import listen_port

SRC = Path(__file__).resolve().parents[2] / "src"


def free_port() -> int:
    """Return a free loopback port a host may listen on (outside the ephemeral range)."""
    return listen_port()


def start_host(
    args: list[str], log: Path, *, killed_at: int | None = None
) -> subprocess.Popen[bytes]:
    """Start ``tradeleague run ARGS`` as a subprocess, its stderr into ``log``.

    ``killed_at``: the host kills itself (SIGKILL) inside the append that would take
    the log past that many events, an exact moment however fast the run writes.
    """
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "FAKE_KEY": "sk-fake"}  # fmt: skip
    command = [sys.executable, "-m", "tradeleague.cli"]
    if killed_at is not None:
        command = [sys.executable, str(Path(__file__).with_name("killed_at.py")), str(killed_at)]
    with log.open("ab") as handle:  # the child keeps its own descriptor
        return subprocess.Popen(
            [*command, "run", *args],
            stdout=handle, stderr=handle, env=env, start_new_session=True,
        )  # fmt: skip


def metric(port: int, name: str) -> float:
    """Return the sum of ``name``'s samples on the host's /metrics, 0 when not served yet."""
    try:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
    except httpx.HTTPError:
        return 0.0
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(name) and not line.startswith("#")
    )


def wait_for(check: object, timeout_s: float, what: str) -> None:
    """Poll ``check()`` every 0.2 s until true, or fail naming ``what``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout_s: float = 30) -> int:
    """Send ``sig`` and return the exit status."""
    process.send_signal(sig)
    return process.wait(timeout=timeout_s)
