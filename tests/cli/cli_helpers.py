"""Running the real ``tradeleague`` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
