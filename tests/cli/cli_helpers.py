"""Running the real ``tradeleague`` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tradeleague.testing.ports import refusing_port

SRC = Path(__file__).resolve().parents[2] / "src"


def cli_env(**extra: str) -> dict[str, str]:
    """Return the environment of a CLI run: this checkout first, no default database."""
    env = {k: v for k, v in os.environ.items() if k != "TRADELEAGUE_DB"}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["COLUMNS"] = "200"
    env.update(extra)
    return env


def cli_argv(*args: str) -> list[str]:
    """Return the argv of ``tradeleague ARGS...`` with this interpreter."""
    return [sys.executable, "-m", "tradeleague.cli", *args]


def run_cli(
    *args: str, cwd: Path, timeout: float = 180, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``tradeleague ARGS...`` in ``cwd`` with its output piped (not a terminal)."""
    return subprocess.run(
        cli_argv(*args),
        cwd=cwd,
        env=cli_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def closed_port() -> int:
    """Return a loopback port that refuses connections for as long as the tests run."""
    return refusing_port()


def interrupt_at(*args: str, cwd: Path, prefix: str) -> tuple[str, int, str]:
    """Run ``tradeleague ARGS...`` piped, send Ctrl-C once it prints a line starting ``prefix``.

    Returns that line (or the last read, "" if output ended first), the exit status and stderr.
    """
    run = subprocess.Popen(
        cli_argv(*args),
        cwd=cwd,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert run.stdout is not None
    deadline = time.monotonic() + 120  # a bound on waiting, not a speed check
    line = ""
    while time.monotonic() < deadline:
        line = run.stdout.readline()
        if line.startswith(prefix) or not line:
            break
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    return line, run.returncode, err
