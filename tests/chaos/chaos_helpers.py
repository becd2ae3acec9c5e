"""Helpers of the chaos tests: run the CLI as a process, kill it with SIGKILL mid-run.

A child is started with the same interpreter and the same ``tradeleague``
package as the tests. ``kill_after_rounds`` polls the SQLite file the child
writes (read-only, outside the store's code) until at least ``rounds`` rounds
are recorded, waits a moment drawn from the seed, and sends SIGKILL: no
handler runs, nothing is flushed, as when a machine loses power.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import tradeleague

SRC = Path(tradeleague.__file__).resolve().parents[1]
"""The folder holding the ``tradeleague`` package under test."""


def cli(args: Sequence[str]) -> list[str]:
    """Return the command line running ``tradeleague ARGS`` in a fresh interpreter."""
    return [sys.executable, "-m", "tradeleague.cli", *args]


def child_env() -> dict[str, str]:
    """Return the environment of a child: this package first on the path, wide console."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["COLUMNS"] = "200"
    return env


def recorded_rounds(db: Path) -> int:
    """Return how many ``RoundFinished`` events the SQLite file ``db`` holds (0 if none yet)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            row = conn.execute(
                "SELECT count(*) FROM events WHERE kind = 'RoundFinished'"
            ).fetchone()
    except sqlite3.Error:
        return 0  # the schema is not there yet, or the writer holds the lock
    return int(row[0])


def kill_after_rounds(
    argv: Sequence[str], db: Path, *, rounds: int, seed: int, timeout_s: float = 60
) -> bool:
    """Start ``argv``; SIGKILL it once ``db`` holds ``rounds`` rounds, after a seeded pause.

    Returns whether the child was killed (``False``: it had already finished).

    Raises
    ------
    AssertionError
        If the child fails, or records no round within ``timeout_s``.
    """
    rng = random.Random(seed)
    deadline = time.monotonic() + timeout_s
    with subprocess.Popen(
        argv, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as child:
        try:
            while recorded_rounds(db) < rounds and child.poll() is None:
                assert time.monotonic() < deadline, "the child recorded no round in time"
                time.sleep(0.02)
            time.sleep(rng.uniform(0, 0.4))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                child.wait(10)
                return True
            _, err = child.communicate(timeout=10)
            assert child.returncode == 0, err.decode(errors="replace")
            return False
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(10)


def run_to_end(argv: Sequence[str], timeout_s: float = 120) -> None:
    """Run ``argv`` to completion.

    Raises
    ------
    AssertionError
        If it exits non-zero (its output is in the message).
    """
    done = subprocess.run(
        argv, env=child_env(), capture_output=True, timeout=timeout_s, check=False
    )
    assert done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")[-4000:]
