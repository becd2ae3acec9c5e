"""The toy, a fifth format from outside the project, appears everywhere through the registry.

None of these tests, nor any file outside ``tests/formats/toy/``, names the toy
to the project: it is installed through the ``tradeleague.formats`` entry points
(``conftest.py``) and found by ``tradeleague formats``, ``replay``, the host, the
site, ``verify`` and ``sweep`` as the built-in formats are.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tradeleague.plugin import formats, get


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tradeleague.cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_registry_finds_the_toy_beside_the_built_ins() -> None:
    keys = [f.key for f in formats()]
    assert keys == ["weights", "direction", "scenario", "thesis", "toy"]
    assert get("toy").table == "toy"


def test_tradeleague_formats_lists_the_toy(toy_env: dict[str, str], tmp_path: Path) -> None:
    done = _cli(["formats", "--json"], toy_env, tmp_path)
    assert done.returncode == 0, done.stderr
    listed = {f["key"]: f for f in json.loads(done.stdout)["formats"]}
    assert set(listed) == {"weights", "direction", "scenario", "thesis", "toy"}
    assert listed["toy"]["replay"] == "tradeleague replay toy"
    assert listed["toy"]["league_file_table"] == "[toy]"
    assert listed["toy"]["pages"] == ["/toy"]
