"""A Ray cluster of two nodes on this machine, for the bench and the tests of ``sweep --address``.

`two_node_ray` starts a head (``ray start --head``) and a second node
(``ray start --address``), one CPU each, with their own temporary folder, their
own token (token authentication on) and ports drawn by
`tradeleague.testing.ports.listen_port`: no daemon of another Ray on the
machine is shared or touched. On leaving, it ends only the processes whose
command line names that folder (``ray stop`` would end every Ray of the user),
then removes the folder.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tradeleague.testing.ports import listen_port

__all__ = ["RayCluster", "two_node_ray"]

_START_S = 240.0
"""How long one ``ray start`` may take: minutes on a loaded machine of two cores."""

_GRACE_S = 3.0
"""How long the processes get to end after SIGTERM (the GCS and the raylets ignore it) before
SIGKILL: the cluster holds nothing to save."""

_STOP_S = 20.0
"""How long SIGKILLed processes may take to leave ``/proc``."""


@dataclass(frozen=True)
class RayCluster:
    """A running cluster: the head's ``HOST:PORT``, the environment its clients need, its folder."""

    address: str
    env: dict[str, str]
    folder: Path


def _ray_command() -> list[str]:
    """Return the ``ray`` command of this Python's environment (the one beside the interpreter)."""
    beside = Path(sys.executable).parent / "ray"
    return [str(beside)] if beside.exists() else ["ray"]


def _node_ports() -> list[str]:
    """Each port a node listens on, drawn free (two nodes on one machine must not share any)."""
    options = [
        "--node-manager-port",
        "--object-manager-port",
        "--dashboard-agent-listen-port",
        "--dashboard-agent-grpc-port",
        "--runtime-env-agent-port",
        "--metrics-export-port",
    ]
    return [part for option in options for part in (option, str(listen_port()))]


def _start(argv: list[str], env: dict[str, str], log: Path) -> None:
    with log.open("ab") as stream:
        done = subprocess.run(  # noqa: S603 - the environment's own ray, our arguments
            [*_ray_command(), "start", *argv],
            env=env,
            stdout=stream,
            stderr=subprocess.STDOUT,
            timeout=_START_S,
            check=False,
        )
    if done.returncode:
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"ray start {' '.join(argv[:2])} exited {done.returncode}: {tail}")


def _pids_naming(folder: Path) -> list[int]:
    """Return the processes whose command line names ``folder`` (the cluster's own)."""
    needle = str(folder).encode()
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if needle in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


def _end(folder: Path) -> None:
    """End every process of the cluster in ``folder``: SIGTERM, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, _GRACE_S), (signal.SIGKILL, _STOP_S)):
        pids = _pids_naming(folder)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while pids and time.monotonic() < deadline:
            time.sleep(0.2)
            pids = _pids_naming(folder)
        if not pids:
            return


@contextlib.contextmanager
def two_node_ray(*, object_store_bytes: int = 80 * 1024 * 1024) -> Iterator[RayCluster]:
    """Start a head and a second node of one CPU each on ``127.0.0.1``; end both on leaving."""
    folder = Path(tempfile.mkdtemp(prefix="tl-ray2-"))
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    port = listen_port()
    address = f"127.0.0.1:{port}"
    common = [
        "--node-ip-address",
        "127.0.0.1",
        "--num-cpus",
        "1",
        "--object-store-memory",
        str(object_store_bytes),
        "--disable-usage-stats",
        "--temp-dir",
        str(folder),
        "--min-worker-port",
        "0",
        "--max-worker-port",
        "0",
    ]
    log = folder / "ray-start.log"
    try:
        head = ["--head", "--port", str(port), "--include-dashboard", "false"]
        _start([*head, *common, *_node_ports()], env, log)
        _start(["--address", address, *common, *_node_ports()], env, log)
        yield RayCluster(address=address, env=env, folder=folder)
    finally:
        _end(folder)
        shutil.rmtree(folder, ignore_errors=True)
