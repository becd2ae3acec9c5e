"""Every CLI command with malformed arguments: exit 2, one sentence, no traceback, no file.

Each command runs in an empty folder with no ``$TRADELEAGUE_DB``, so the default
database would be ``./tradeleague.db``; the folder must still be empty after.
The cases of a few commands run as a user runs them, a ``tradeleague`` process
(`PROCESS_SAMPLE`); every other case runs the same entry point, ``cli.main``, in
this process, with its output captured as the process's would be: a process
per case (seventy of them) only repeated the interpreter's start.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from cli_helpers import run_cli  # type: ignore[import-not-found]

from tradeleague.cli import command_tree, main

PROCESS_SAMPLE = frozenset({"verify", "replay weights", "serve", "rating"})
"""Commands whose cases run as a process: a usage error, a user error and a missing file."""


def _commands() -> set[str]:
    found: set[str] = set()

    def walk(command: object, path: list[str]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, [*path, name])
        else:
            found.add(" ".join(path))

    walk(command_tree(), [])
    return found


def _cases(data: Path) -> dict[str, list[list[str]]]:
    daily, hourly, minute = (
        str(data / "us_equities_daily"),
        str(data / "us_equities_1h"),
        str(data / "crypto_1m"),
    )
    return {
        "verify": [["verify", "--checkpoint", "nope"], ["verify", "--bundle", "nothere"]],
        "export": [["export", "--season", "S1", "--out", "b", "--key", "nothere.key"]],
        "demo": [
            ["demo", "--rounds", "0"],
            ["demo", "--end", "Tuesday"],
            ["demo", "--candles", str(data / "crypto_4h")],
            ["demo", "--rounds", "99999999", "--house-model"],
        ],
        "serve": [["serve", "--port", "eighty"], ["serve", "--config", "/nonexistent/l.toml"]],
        "limits": [["limits", "nosuch"]],
        "formats": [["formats", "--jsn"], ["formats", "weights"]],
        "model serve": [
            ["model", "serve", "--port", "eighty"],
            ["model", "serve", "--model", "/nonexistent/x.gguf"],
        ],
        "log": [["log", "--season", "s1"], ["log"]],
        "data inspect": [["data", "inspect", "/nonexistent/bars"]],
        "stats luck": [["stats", "luck", "--hit-rate", "200", "--trades", "10"]],
        "db upgrade": [["db", "upgrade", "--db", "nonsense://x"]],
        "db info": [["db", "info", "--db", "nonsense://x"]],
        "db refresh": [["db", "refresh"]],
        "replay weights": [
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--start", "notadate"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:nosuch"],
            ["replay", "weights", "--market", daily, "--agent", "x=local:anything"],
            ["replay", "weights", "--market", hourly, "--agent", "x=baseline:cash",
             "--start", "1990-01-01", "--end", "1990-02-01"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--timeout", "0"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--timeout", "nan"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--timeout", "inf"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--universe-from", "sqlite:///nothere.db", "--universe-season", "S1"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--universe-from", "sqlite:///nothere.db"],
            ["replay", "weights", "--market", daily, "--agent", "x=baseline:cash",
             "--pro", "nobody"],
        ],
        "replay direction": [
            ["replay", "direction", "--market", minute, "--agent", "x=baseline:up",
             "--start", "bad"],
            ["replay", "direction", "--market", minute, "--agent", "x=baseline:up",
             "--start", "1990-01-01T00:00Z", "--end", "1990-01-02T00:00Z"],
            ["replay", "direction", "--market", minute, "--agent", "x=baseline:up",
             "--timeout", "900"],
            ["replay", "direction", "--market", minute, "--agent", "x=baseline:nosuch"],
        ],
        "replay thesis": [
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "bad", "--end", "2025-02-01", "--agent", "x=baseline:cash"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-01-20", "--agent", "x=baseline:nosuch"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-02-01", "--agent", "x=baseline:cash"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-20", "--end", "2025-01-01", "--agent", "x=baseline:cash"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "1990-01-01", "--end", "1990-01-20", "--agent", "x=baseline:cash"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-01-20", "--agent", "x=baseline:cash",
             "--timeout", "0"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-01-20", "--agent", "x=baseline:cash",
             "--timeout", "nan"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-01-20", "--agent", "x=baseline:cash",
             "--join", "x=soon"],
            ["replay", "thesis", "--crypto", f"{data}/crypto_4h", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-01-20", "--agent", "m=inverse:nobody"],
            ["replay", "thesis", "--crypto", "/nonexistent", "--stocks", daily,
             "--start", "2025-01-01", "--end", "2025-01-20", "--agent", "x=baseline:cash"],
        ],
        "stats null": [
            ["stats", "null", "--market", daily, "--start", "bad", "--end", "2026-02-01",
             "--agents", "10"],
            ["stats", "null", "--market", daily, "--start", "2026-01-05", "--end", "2026-02-01",
             "--agents", "10", "--format", "direction"],
        ],
        "scenario create": [
            ["scenario", "create", "s", "--market", daily, "--symbols", "SPY",
             "--start", "bad", "--end", "2024-01-01"],
            ["scenario", "create", "s", "--market", "/nonexistent", "--symbols", "SPY",
             "--start", "2024-01-01", "--end", "2024-02-01"],
        ],
        "db keygen": [["db", "keygen", "--out", "/nonexistent/dir/head.key"]],
        "db sign-head": [
            ["db", "sign-head", "--key", "/nonexistent/head.key", "--out", "head.json",
             "--db", "sqlite:///nothere.db"],
        ],
        "run": [
            ["run", "--config", "/nonexistent/league.toml"],
            ["run", "--config", "/nonexistent/league.toml", "--clock", "sundial"],
        ],
        "agents check": [["agents", "check", "--config", "/nonexistent/league.toml"]],
        "status": [["status", "--config", "/nonexistent/league.toml"]],
        "sweep": [
            ["sweep", "--config", "/nonexistent/sweep.toml"],
            ["sweep", "--config", "/nonexistent/sweep.toml", "--workers", "0"],
        ],
        "universe": [["universe", "--config", "/nonexistent/league.toml"]],
        "rating": [
            ["rating", "--sweep", "/nonexistent/sweep-out"],
            ["rating", "--db", "sqlite:///nothere.db"],
            ["rating", "--db", "sqlite:///nothere.db", "--seed", "-1"],
            ["rating", "--sweep", "/nonexistent/sweep-out", "--format", "bogus"],
        ],
        "report": [["report", "--season", "S1", "--out", "r.json", "--db", "sqlite:///nothere.db"]],
        "keys create": [["keys", "create", "--account", "a", "--tier", "bogus"]],
        "weights create-season": [
            ["weights", "create-season", "--start", "2026-03-03", "--market", daily],
        ],
        "weights add-agent": [
            ["weights", "add-agent", "--season", "s", "--name", "a", "--owner", "o",
             "--spec", "baseline:cash"],
        ],
        "weights run-round": [["weights", "run-round", "--season", "s", "--market", daily]],
        "weights release-hold": [
            ["weights", "release-hold", "--season", "s", "--symbol", "SPY", "--by", "me"],
        ],
        "weights pause": [["weights", "pause", "--season", "s", "--agent", "a"]],
        "weights resume": [["weights", "resume", "--season", "s", "--agent", "a"]],
        "weights table": [["weights", "table", "--season", "s"]],
    }  # fmt: skip


Ran = tuple[int, str, str]
"""A run's exit status, stdout and stderr."""


def _in_process(args: list[str], folder: Path) -> Ran:
    """Run ``tradeleague ARGS`` through ``cli.main`` in ``folder``, as a process would see it.

    An exception that escapes ``main`` is printed as the interpreter would print
    it (a traceback, exit 1).
    """
    out, err = StringIO(), StringIO()
    code = 0
    here = os.getcwd()
    os.chdir(folder)  # the default database would land here
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        err.write(traceback.format_exc())
        code = 1
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def _as_process(args: list[str], folder: Path) -> Ran:
    done = run_cli(*args, cwd=folder)
    return done.returncode, done.stdout, done.stderr


def _check(args: list[str], root: Path, run: Callable[[list[str], Path], Ran]) -> str | None:
    folder = root / f"run{abs(hash(tuple(args)))}"
    folder.mkdir()
    code, stdout, stderr = run(args, folder)
    left = sorted(p.name for p in folder.iterdir())
    lines = [line for line in stderr.splitlines() if line.strip()]
    problems = []
    if code != 2:
        problems.append(f"exit {code}")
    if "Traceback" in stderr + stdout:
        problems.append("a traceback")
    if len(lines) != 1 or not lines[0].startswith("error: "):
        problems.append(f"not one 'error:' line: {lines!r}")
    if left:
        problems.append(f"left files {left}")
    return None if not problems else f"{' '.join(args)}: {'; '.join(problems)}"


@pytest.fixture
def like_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment `run_cli` gives a process: no default database, 200 columns."""
    monkeypatch.delenv("TRADELEAGUE_DB", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def test_every_command_has_a_malformed_case(shared_data: Path) -> None:
    """A new command must join the walk below (issue 11: every command is walked)."""
    assert _commands() == set(_cases(shared_data))
    assert set(_cases(shared_data)) >= PROCESS_SAMPLE


def test_every_command_with_malformed_arguments_exits_2_in_one_sentence(
    shared_data: Path, tmp_path: Path, like_a_process: None
) -> None:
    """Exit 2, one ``error:`` line, no traceback, nothing written (issue 11)."""
    cases = _cases(shared_data)
    processes = [args for name in sorted(PROCESS_SAMPLE) for args in cases[name]]
    here = [args for name, runs in cases.items() if name not in PROCESS_SAMPLE for args in runs]
    with ThreadPoolExecutor(max_workers=2) as pool:  # the processes run beside the rest
        running = pool.map(lambda a: _check(a, tmp_path, _as_process), processes)
        failures = [_check(args, tmp_path, _in_process) for args in here]
        failures += list(running)
    assert [f for f in failures if f is not None] == []
