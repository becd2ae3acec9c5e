"""One cell of a sweep: the format's own replay command, run in this process.

A cell is ``tradeleague replay FORMAT ...`` with its own store and report in
its folder, run by the format's sweep part (`tradeleague.sweep.plugin.SweepPart`);
what the command prints goes to the folder's ``replay.log``. The same function
runs a cell in a Ray worker and in a single process, so both give the same
report.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

__all__ = ["run_cell"]


def run_cell(fmt: str, argv: list[str], folder: str) -> dict[str, Any]:
    """Run format ``fmt``'s replay with the options ``argv``, recording into ``folder``.

    Returns ``exit_code`` (0: the replay succeeded), ``error`` (the replay's
    own one-sentence error, or the last line it printed, on failure; else
    ``None``) and ``seconds``. Never raises for a failed replay: a failed cell
    is a result.
    """
    from tradeleague.errors import TradeleagueError
    from tradeleague.plugin import get

    where = Path(folder)
    where.mkdir(parents=True, exist_ok=True)
    log = where / "replay.log"
    started = time.perf_counter()
    error: str | None = None
    with (
        log.open("w", encoding="utf-8") as stream,
        contextlib.redirect_stdout(stream),
        contextlib.redirect_stderr(stream),
    ):
        try:
            code = get(fmt).part("sweep").replay(argv)
        except TradeleagueError as exc:  # the replay's own sentence, a bad option's included
            code, error = 2, str(exc)
        except Exception as exc:  # a bug in a replay: the cell fails, the sweep goes on
            code, error = 1, f"{type(exc).__name__}: {exc}"
    if code and error is None:
        lines = [line.strip() for line in log.read_text(encoding="utf-8").splitlines()]
        last = next((line for line in reversed(lines) if line), "")
        error = f"the replay exited {code}: {last}" if last else f"the replay exited {code}"
    return {"exit_code": code, "error": error, "seconds": time.perf_counter() - started}
