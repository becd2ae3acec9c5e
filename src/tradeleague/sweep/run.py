"""Run a sweep's cells: each one a Ray task, or in processes on this machine (no Ray).

On Ray each cell is one task of one CPU, at most ``workers`` in flight.
`ray_session` starts a local Ray when no address is given (and stops it
after), connects to the cluster at an address, and uses a Ray this process
already started as it is. Results come back as each cell finishes, in any order; a cell
that fails (its replay's error, or its worker lost) is a result too, so the
others still run.

On a cluster, every node must see the same paths (the markets and --out, on
a shared filesystem) and have tradeleague installed.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import secrets
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.sweep.cell import run_cell
from tradeleague.sweep.config import Cell

__all__ = ["OnDone", "import_ray", "ray_session", "run_local", "run_on_ray", "start_local_ray"]

_CONNECT_S = 5.0
"""How long to wait for a Ray head to answer before saying nothing does."""

OnDone = Callable[[int, Cell, dict[str, Any]], None]
"""Called as each cell finishes: its index in the grid, the cell, its result."""

_OBJECT_STORE_BYTES = 100 * 1024 * 1024
"""A cell returns a few numbers (its report is a file): a local Ray needs little shared memory."""

RAY_MISSING = (
    "the sweep runs on Ray, which is not installed: pip install 'tradeleague[ray]' "
    "(or pip install 'ray>=2.9')"
)


def import_ray() -> Any:
    """Return the ``ray`` module, or raise one sentence saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    return ray


def start_local_ray(cpus: int, **options: Any) -> Path:
    """Start a local Ray of ``cpus`` CPUs for this process; return its temporary folder.

    Remove the folder after ``ray.shutdown()``: it holds the session's logs.
    Its own folder and, unless one is set, its own token (``RAY_AUTH_TOKEN``,
    in this process's environment, which its workers inherit): two local Rays
    started at once never share a session or overwrite each other's token in
    ``~/.ray``, and token authentication stays on. No dashboard; a small
    object store (a cell's result is a few numbers; its report is a file).
    """
    ray = import_ray()
    if "RAY_AUTH_TOKEN" not in os.environ and "RAY_AUTH_TOKEN_PATH" not in os.environ:
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
        # Ray would announce the token authentication it turns on; here it is chosen
        logging.getLogger("ray._private.authentication").setLevel(logging.ERROR)
    folder = tempfile.mkdtemp(prefix="tl-ray-")
    settings: dict[str, Any] = {
        "address": "local",
        "num_cpus": cpus,
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": "WARNING",
        "object_store_memory": _OBJECT_STORE_BYTES,
        "_temp_dir": folder,
    }
    try:
        ray.init(**{**settings, **options})
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Path(folder)


def run_local(
    cells: Sequence[Cell], out: Path, on_done: OnDone, *, workers: int = 1
) -> list[dict[str, Any]]:
    """Run every cell on this machine, without Ray; return the results in grid order.

    ``workers`` 1 runs the cells one after another in this process; more runs
    up to that many at once, each in its own process (spawned: nothing of this
    process's state is inherited). A cell's folder and arguments are the ones
    `run_on_ray` gives it, so both write the same reports byte for byte.
    """
    if workers <= 1:
        results: list[dict[str, Any]] = []
        for index, cell in enumerate(cells):
            folder = out.resolve() / cell.folder
            result = run_cell(cell.format, cell.replay_argv(folder), str(folder))
            on_done(index, cell, result)
            results.append(result)
        return results
    found: list[dict[str, Any] | None] = [None] * len(cells)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending = {}
        for index, cell in enumerate(cells):
            folder = out.resolve() / cell.folder
            args = (cell.format, cell.replay_argv(folder), str(folder))
            pending[pool.submit(run_cell, *args)] = index
        for future in as_completed(pending):
            index = pending[future]
            try:
                result = future.result()
            except Exception as exc:  # the worker process died: the cell failed
                error = f"{type(exc).__name__}: {_first_line(exc)}"
                result = {"exit_code": 1, "error": error, "seconds": 0.0}
            found[index] = result
            on_done(index, cells[index], result)
    return [r for r in found if r is not None]


@contextlib.contextmanager
def ray_session(address: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """Yield ``ray``, connected: to ``address``, or to a local Ray started (and stopped) here.

    A Ray this process already started is used as it is and left running.

    Parameters
    ----------
    address
        A Ray cluster to connect to (``ray://host:10001`` or ``host:6379``);
        ``None`` starts a local Ray of ``workers`` CPUs (default: this machine's).

    Raises
    ------
    ConfigError
        When Ray is not installed, a local Ray cannot start, or nothing answers at
        ``address``.
    """
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    session: Path | None = None
    if address is None:
        try:
            session = start_local_ray(workers or os.cpu_count() or 1)
        except (OSError, RuntimeError, ValueError) as exc:  # Ray's daemons did not come up
            raise ConfigError(f"a local Ray could not start: {_first_line(exc)}") from None
    else:
        _check_reachable(address)
        try:
            ray.init(address=address, log_to_driver=False, logging_level="WARNING")
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ConfigError(f"cannot connect to the Ray cluster at {address}: {exc}") from None
    try:
        yield ray
    finally:
        ray.shutdown()
        if session is not None:
            shutil.rmtree(session, ignore_errors=True)


def _first_line(exc: BaseException) -> str:
    """Return the first line of ``exc``'s message (Ray's run on for pages), or its type."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _check_reachable(address: str) -> None:
    """Fail in one sentence when nothing listens at ``address`` (Ray itself retries for minutes)."""
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(
            f"--address {address!r}: give HOST:PORT of a Ray head, e.g. ray://head:10001"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_S):
            pass
    except OSError as exc:
        raise ConfigError(
            f"nothing answers at {address} ({exc.strerror or exc}): is the Ray head running?"
        ) from None


def _cell_on_node(fmt: str, argv: list[str], folder: str) -> dict[str, Any]:
    """`run_cell` in a Ray worker, its result naming the Ray node that ran it (``node``).

    The node goes to the sweep's log, never to a report: the reports stay the
    same wherever the cells ran.
    """
    import ray

    result = run_cell(fmt, argv, folder)
    result["node"] = ray.get_runtime_context().get_node_id()
    return result


def run_on_ray(
    cells: Sequence[Cell],
    out: Path,
    on_done: OnDone,
    *,
    workers: int | None = None,
) -> list[dict[str, Any]]:
    """Run every cell as a Ray task on the Ray this process is connected to (`ray_session`).

    Returns the results in grid order, each with the Ray node id that ran it
    (``node``; absent for a cell whose worker was lost). ``workers`` is the
    most cells in flight at once (default: the cluster's CPUs).
    """
    ray = import_ray()
    limit = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    task = ray.remote(num_cpus=1, max_retries=0)(_cell_on_node)
    results: list[dict[str, Any] | None] = [None] * len(cells)
    waiting = list(enumerate(cells))
    flying: dict[Any, int] = {}
    while waiting or flying:
        while waiting and len(flying) < limit:
            index, cell = waiting.pop(0)
            folder = out.resolve() / cell.folder
            flying[task.remote(cell.format, cell.replay_argv(folder), str(folder))] = index
        done, _ = ray.wait(list(flying), num_returns=1)
        index = flying.pop(done[0])
        try:
            result: dict[str, Any] = ray.get(done[0])
        except Exception as exc:  # the worker died or Ray lost the task: the cell failed
            error = f"{type(exc).__name__}: {_first_line(exc)}"
            result = {"exit_code": 1, "error": error, "seconds": 0.0}
        results[index] = result
        on_done(index, cells[index], result)
    return [r for r in results if r is not None]
